#!/usr/bin/env bash
# `npm run test:container`: builds the Dockerfile and proves the image here, where no image registry is
# reachable (so not part of `npm test`). Needs root or sudo: it installs podman, runc and debootstrap with
# apt-get when missing, and runs rootful podman.
#
# 1. A Debian 13 (trixie) base with Node.js and npm from Debian, made with debootstrap instead of pulled; its
#    tarball is cached outside the clone (REWARD_GATEWAY_CACHE, default /var/cache/reward-gateway/), since it
#    takes minutes the first time. Delete the tarball to rebuild it.
# 2. `podman build --build-arg BASE=<that base>`, with the machine's NODE_EXTRA_CA_CERTS as the `npm_ca` build
#    secret when set (a TLS-intercepting proxy).
# 3. The image runs against a sandbox started on the host: one query, the process's user is not root, and
#    SIGTERM stops it with exit code 0.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { printf '\n== %s (%ss)\n' "$*" "$((SECONDS - started))"; }
fail() { printf 'test:container FAILED: %s\n' "$*" >&2; exit 1; }

SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo "sudo")
CACHE=${REWARD_GATEWAY_CACHE:-/var/cache/reward-gateway}
BASE_TAR=$CACHE/debian-trixie-nodejs-npm.tar
BASE_IMAGE=localhost/reward-gateway-base:trixie
IMAGE=localhost/reward-gateway:test
NAME=reward-gateway-test-$$

missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  $SUDO apt-get update
  $SUDO apt-get install -y podman runc debootstrap
fi

# Rootful podman on this kind of VM: no ulimits to copy into containers, cgroups managed without systemd.
work=$(mktemp -d)
export CONTAINERS_CONF=$work/containers.conf
printf '[containers]\ndefault_ulimits = []\n\n[engine]\ncgroup_manager = "cgroupfs"\n' >"$CONTAINERS_CONF"
podman() { $SUDO env CONTAINERS_CONF="$CONTAINERS_CONF" podman --runtime runc "$@"; }

sandbox_pid=""
cleanup() {
  podman rm -f "$NAME" >/dev/null 2>&1 || true
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null || true
  $SUDO rm -rf "$work"
}
trap cleanup EXIT

if [ ! -s "$BASE_TAR" ]; then
  step "debootstrap a Debian 13 base with nodejs and npm into $BASE_TAR"
  root=$work/rootfs
  $SUDO mkdir -p "$CACHE"
  $SUDO debootstrap --variant=minbase --include=nodejs,ca-certificates trixie "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  # npm from Debian, installed inside the new root with its own apt-get (the host's name resolution lent to it).
  $SUDO cp /etc/resolv.conf "$root/etc/resolv.conf"
  $SUDO chroot "$root" apt-get install -y --no-install-recommends npm
  $SUDO chroot "$root" apt-get clean
  $SUDO rm -rf "$root"/var/lib/apt/lists/* "$root/etc/resolv.conf"
  $SUDO tar -C "$root" -cf "$BASE_TAR.partial" .
  $SUDO mv "$BASE_TAR.partial" "$BASE_TAR"
  $SUDO rm -rf "$root"
fi

step "podman import $BASE_TAR as $BASE_IMAGE"
podman import "$BASE_TAR" "$BASE_IMAGE" >/dev/null

step "podman build --build-arg BASE=$BASE_IMAGE"
secret=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -s "$NODE_EXTRA_CA_CERTS" ]; then
  secret=(--secret "id=npm_ca,src=$NODE_EXTRA_CA_CERTS")
fi
podman build --network host --build-arg "BASE=$BASE_IMAGE" "${secret[@]}" -t "$IMAGE" .

step "start a sandbox on the host"
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
sandbox_port=$(free_port)
gateway_port=$(free_port)
token=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
key=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
SANDBOX_PORT=$sandbox_port SANDBOX_TOKEN=$token node --import tsx src/sandbox/main.ts >"$work/sandbox.log" 2>&1 &
sandbox_pid=$!
until curl -sf -o /dev/null -H "authorization: Bearer $token" "http://127.0.0.1:$sandbox_port/papi/v1/ping"; do
  kill -0 "$sandbox_pid" 2>/dev/null || fail "the sandbox did not start: $(cat "$work/sandbox.log")"
  sleep 0.2
done

step "run the image against it"
podman run -d --name "$NAME" --network host \
  -e PORT="$gateway_port" -e HOST=127.0.0.1 \
  -e REWARD_API_URL="http://127.0.0.1:$sandbox_port/papi/v1" -e REWARD_API_TOKEN="$token" \
  -e GATEWAY_API_KEYS="[{\"name\":\"container-test\",\"key\":\"$key\",\"scopes\":[\"rewards:read\",\"funds:read\"]}]" \
  "$IMAGE" >/dev/null
gateway=http://127.0.0.1:$gateway_port
for _ in $(seq 1 150); do
  curl -sf -o /dev/null "$gateway/ready" && break
  [ "$(podman inspect -f '{{.State.Running}}' "$NAME")" = true ] || fail "the container stopped: $(podman logs "$NAME" 2>&1)"
  sleep 0.2
done
curl -sf -o /dev/null "$gateway/ready" || fail "/ready never answered 200: $(podman logs "$NAME" 2>&1)"

answer=$(curl -s "$gateway/graphql" -H 'content-type: application/json' -H "authorization: Bearer $key" \
  -d '{"query":"{ viewer { username } funds { balances { currency } } }"}')
echo "query answered: $answer"
echo "$answer" | grep -q '"username"' || fail "unexpected answer to the query"
echo "$answer" | grep -q '"errors"' && fail "the query answered errors"

uid=$(podman exec "$NAME" cat /proc/1/status | awk '/^Uid:/ { print $2 }')
echo "gateway runs as uid $uid"
[ "$uid" != 0 ] || fail "the gateway runs as root"

step "SIGTERM"
podman kill --signal TERM "$NAME" >/dev/null
code=$(podman wait "$NAME")
podman logs "$NAME" 2>&1 | tail -n 2
[ "$code" = 0 ] || fail "exit code $code after SIGTERM, expected 0"
curl -s -o /dev/null --max-time 2 "$gateway/health" && fail "the gateway still answers after it exited"

step "passed: image $IMAGE built from $BASE_IMAGE, queried, non-root, exit 0 on SIGTERM"
