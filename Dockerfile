# The gateway's image: `node dist/main.js` as a non-root user, production dependencies only.
#
#   docker build -t reward-gateway .                                   # or podman build
#   docker build --secret id=npm_ca,src=/path/to/proxy-ca.pem ...      # behind a TLS-intercepting proxy
#   docker build --build-arg BASE=<another Node 20 image> ...          # both stages use it
#
# `npm run test:container` builds it on a Debian 13 base made with debootstrap and proves it (docs/production.md).

ARG BASE=docker.io/library/node:20-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The optional build secret `npm_ca` is a PEM file npm trusts besides the usual roots; it is mounted for this
# step only and never stored in a layer.
RUN --mount=type=secret,id=npm_ca,required=false \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund
COPY . .
# Type-check and bundle, then drop the dev dependencies (no network needed for that).
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${BASE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The operations MCP_ENABLED=true serves as tools (MCP_OPERATIONS_DIR, docs/mcp.md).
COPY --from=build /app/operations/*.graphql ./operations/
# Numeric, so Kubernetes' runAsNonRoot can check it; owns nothing, so the image's files are read-only to it.
USER 10001:10001
EXPOSE 4000
# Node is PID 1 and handles SIGTERM itself: it drains (SHUTDOWN_READY_DELAY_MS, SHUTDOWN_DEADLINE_MS) and exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "--enable-source-maps", "--max-semi-space-size=64", "--expose-gc", "dist/main.js"]
