import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { EXPIRY, type Lease, type LogPosition, type LogRead, type SharedStore, type Snapshot, type StoreTiming } from './store.js';

// The shared state of a cluster in Redis. Every step that must be atomic is one Lua script (a Redis script
// runs alone, so a lease check and the writes it guards cannot interleave with another replica's).
//
// Keys, all under the prefix P (REDIS_KEY_PREFIX):
//   P epoch                 random id of this Redis's data; a Redis restarted empty gets a new one, which
//                           turns every cursor issued before into CURSOR_EXPIRED
//   P lease:<key>           "<owner>|<token>", PX LIVE_LEASE_MS: who polls the key
//   P fence:<key>           the token counter: every new holder gets a larger token
//   P leader:<key>          last holder, deleted on a clean release: a claim that finds it is a takeover
//   P snap:<key>            hash {state, epoch, id}: the feed's state and the log position it reflects
//   P log:<key>             Stream of events (field `e`), trimmed to LIVE_RETENTION_MS by MINID
//   P watch:<api key>       sorted set "<order>\n<owner>" → expiry: the orders each API key watches
// Channel P appended carries the key of every commit that appended, waking the replicas that watch it.

const CLAIM = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local owner, token = string.match(cur, '^(.*)|(%d+)$')
  if owner ~= ARGV[1] then return false end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3])
  return {tonumber(token), false}
end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
local previous = redis.call('GET', KEYS[3])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3])
if previous == ARGV[1] then previous = false end
return {token, previous}
`;

// KEYS lease leader; ARGV leaseValue channel key. Publishes the key so replicas waiting for the lease to lapse
// look again at once.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('DEL', KEYS[2])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1
`;

/** Shared by the scripts that touch the log: the epoch (created on first use) and the stream's ids. */
const LOG_HELPERS = `
local function epoch_of(key, fresh)
  local epoch = redis.call('GET', key)
  if not epoch then
    redis.call('SET', key, fresh)
    epoch = fresh
  end
  return epoch
end
local function stream_ids(key)
  if redis.call('EXISTS', key) == 0 then return nil end
  local info = redis.call('XINFO', 'STREAM', key)
  local ids = {}
  for i = 1, #info, 2 do ids[info[i]] = info[i + 1] end
  return ids
end
local function parse_id(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function id_before(a, b)
  local am, as = parse_id(a)
  local bm, bs = parse_id(b)
  return am < bm or (am == bm and as < bs)
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

// KEYS lease snap log epoch; ARGV leaseValue state retention freshEpoch channel key events...
const COMMIT = `${LOG_HELPERS}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local epoch = epoch_of(KEYS[4], ARGV[4])
local retention = tonumber(ARGV[3])
local minid = tostring(math.max(0, now_ms() - retention))
local id = nil
for i = 7, #ARGV do
  id = redis.call('XADD', KEYS[3], 'MINID', minid, '*', 'e', ARGV[i])
end
if id then
  redis.call('PEXPIRE', KEYS[3], retention)
  redis.call('PUBLISH', ARGV[5], ARGV[6])
else
  local ids = stream_ids(KEYS[3])
  id = ids and ids['last-generated-id'] or '0-0'
end
redis.call('HSET', KEYS[2], 'state', ARGV[2], 'epoch', epoch, 'id', id)
redis.call('PEXPIRE', KEYS[2], retention)
return {epoch, id}
`;

// KEYS log epoch; ARGV freshEpoch
const TAIL = `${LOG_HELPERS}
local epoch = epoch_of(KEYS[2], ARGV[1])
local ids = stream_ids(KEYS[1])
return {epoch, ids and ids['last-generated-id'] or '0-0'}
`;

// KEYS log epoch; ARGV freshEpoch fromEpoch fromId maxAgeMs (0: no age limit). Replies {'other'} (another
// log's position), {'old'} (too old or trimmed), {'ahead'} (past this log's end: never issued) or the entries.
const READ = `${LOG_HELPERS}
local epoch = epoch_of(KEYS[2], ARGV[1])
if ARGV[2] ~= epoch then return {'other'} end
local from = ARGV[3]
local max_age = tonumber(ARGV[4])
local ms = parse_id(from)
local now = now_ms()
if ms > now then return {'ahead'} end
if max_age > 0 and ms < now - max_age then return {'old'} end
local ids = stream_ids(KEYS[1])
if not ids then
  if from == '0-0' then return {'ok', epoch, {}} end
  return {'old'}
end
if id_before(ids['last-generated-id'], from) then return {'ahead'} end
if id_before(from, ids['max-deleted-entry-id']) then return {'old'} end
return {'ok', epoch, redis.call('XRANGE', KEYS[1], '(' .. from, '+')}
`;

// KEYS watch; ARGV order owner max ttl
const ADMIT = `${LOG_HELPERS}
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local counted, count, present = {}, 0, false
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local order = string.match(m, '^(.*)\\n')
  if order == ARGV[1] then present = true end
  if not counted[order] then
    counted[order] = true
    count = count + 1
  end
end
if not present and count >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1] .. '\\n' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

// KEYS watch; ARGV owner ttl orders... One ZADD for all of them.
const REFRESH = `${LOG_HELPERS}
local expiry = now_ms() + tonumber(ARGV[2])
local args = {}
for i = 3, #ARGV do
  args[#args + 1] = expiry
  args[#args + 1] = ARGV[i] .. '\\n' .. ARGV[1]
end
redis.call('ZADD', KEYS[1], unpack(args))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

export interface RedisStoreOptions extends StoreTiming {
  url: string;
  /** REDIS_KEY_PREFIX */
  prefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS: a command unanswered this long fails, and Redis counts as down until it answers. */
  commandTimeoutMs: number;
  /** Told when Redis becomes reachable or unreachable (also when it is unreachable from the start), with why. */
  onStateChange?(up: boolean, reason: string): void;
}

/** Redis as logs may name it: host and port, never the credentials of the URL. */
export function redisHost(url: string): string {
  return new URL(url).host;
}

export interface RedisStore extends SharedStore {
  /** Resolves once connected, or after `timeoutMs` (the gateway serves either way). */
  connected(timeoutMs: number): Promise<boolean>;
  /** The command connection, which the shared rate limit uses too (src/security/shared-rate-limit.ts). */
  readonly client: Redis;
}

export function createRedisStore({ url, prefix, leaseMs, retentionMs, commandTimeoutMs, onStateChange }: RedisStoreOptions): RedisStore {
  // Commands fail at once while disconnected instead of queueing, and after REDIS_COMMAND_TIMEOUT_MS while
  // Redis hangs with the connection open: the hub then polls locally, which is what keeps subscribers served
  // through an outage. Reconnection never gives up.
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 1_000),
  } as const;
  // Loaded here, in cluster mode only: ioredis adds ~18 MB to the RSS of a one-process gateway that never uses it.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, { ...options, commandTimeout: commandTimeoutMs, connectionName: 'reward-gateway' });
  // Pub/sub needs a connection of its own; ioredis subscribes again after every reconnect. No command timeout:
  // a SUBSCRIBE sent while Redis hangs completes when it answers, and a lost notification costs only latency.
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true, connectionName: 'reward-gateway-events' });
  const owner = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`.replaceAll('|', '-');
  const channel = `${prefix}appended`;
  // A crashed replica's watch admissions lapse after this; renewed every interval, so a replica whose event
  // loop stalls for a while does not lose its admissions to the cap.
  const watchTtlMs = 3 * leaseMs;
  const listeners = new Set<(key: string | null) => void>();
  // What this replica knows of leases, so a quiet key costs Redis almost nothing: a lease held here is renewed
  // (GETEX, one command) once half of it has run, and the leader key with it once half the retention has; a
  // lease held elsewhere is looked at again (PTTL, one command) only when it would lapse unrenewed.
  const held = new Map<string, { value: string; lease: Lease; renewedAt: number; leaderAt: number }>();
  const elsewhereUntil = new Map<string, number>();
  /** When each API key's watch admissions were last renewed: they last 3 leases, renewed once per lease. */
  const refreshedAt = new Map<string, { at: number; members: string }>();
  /** Null until the first connection attempt ends either way, so an unreachable Redis at start is reported too. */
  let up: boolean | null = null;
  /** While Redis counts as down with its connection open (a command timed out): the PING that asks again. */
  let probe: NodeJS.Timeout | null = null;

  const scripts: Record<string, { lua: string; keys: number }> = {
    rgClaim: { lua: CLAIM, keys: 3 },
    rgRelease: { lua: RELEASE, keys: 2 },
    rgCommit: { lua: COMMIT, keys: 4 },
    rgTail: { lua: TAIL, keys: 2 },
    rgRead: { lua: READ, keys: 2 },
    rgAdmit: { lua: ADMIT, keys: 1 },
    rgRefresh: { lua: REFRESH, keys: 1 },
  };
  for (const [name, { lua, keys }] of Object.entries(scripts)) redis.defineCommand(name, { lua, numberOfKeys: keys });

  const setUp = (value: boolean, reason: string) => {
    if (value && probe) clearInterval(probe);
    if (value) probe = null;
    if (up === value) return;
    // Whatever happened meanwhile (a restart, leases lapsing), Redis is asked afresh.
    held.clear();
    elsewhereUntil.clear();
    refreshedAt.clear();
    up = value;
    onStateChange?.(value, reason);
  };
  // A command that timed out on an open connection means Redis hangs (stopped, overloaded, a stalled primary):
  // it counts as down like a lost connection, and a PING every timeout tells when it answers again.
  const timedOut = () => {
    setUp(false, `a command got no answer within ${commandTimeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`);
    probe ??= setInterval(() => {
      redis.ping().then(
        () => redis.status === 'ready' && setUp(true, 'answering again'),
        () => undefined,
      );
    }, commandTimeoutMs);
    probe.unref();
  };
  let lastSentAt = 0;
  const guard = <T>(command: Promise<T>): Promise<T> => {
    lastSentAt = Date.now();
    return command.catch((error: unknown) => {
      if (error instanceof Error && error.message === 'Command timed out') timedOut();
      throw error;
    });
  };
  const run = (name: string, ...args: (string | number)[]): Promise<unknown> => guard((redis as unknown as Record<string, Script>)[name]!(...args));
  // A quiet replica sends Redis almost nothing (see claim), so on its own it would notice a hang only at its
  // next lease check: a PING whenever nothing was sent for half the timeout bounds detection to 1.5 timeouts.
  const heartbeat = setInterval(() => {
    if (up === true && Date.now() - lastSentAt >= commandTimeoutMs / 2) guard(redis.ping()).catch(() => undefined);
  }, commandTimeoutMs / 2);
  heartbeat.unref();

  redis.on('ready', () => setUp(true, 'connected'));
  redis.on('close', () => setUp(false, up === null ? 'cannot connect' : 'connection lost'));
  // ioredis reports every failed reconnection as an error event; the state change is what matters, and the
  // first one when Redis was never reached (its code only: messages may carry the address, never credentials).
  redis.on('error', (error: NodeJS.ErrnoException) => {
    if (up === null) setUp(false, `cannot connect (${error.code ?? error.name})`);
  });
  subscriber.on('error', () => undefined);
  void subscriber.subscribe(channel).catch(() => undefined);
  // Pub/sub loses what is published while its connection is down: once it is back (ioredis subscribes again),
  // every key is read, so a replica's slow sweep is only a last resort.
  let subscribed = false;
  subscriber.on('ready', () => {
    if (subscribed) for (const listener of [...listeners]) listener(null);
    subscribed = true;
  });
  subscriber.on('message', (_channel: string, key: string) => {
    // The key's log grew or its lease was released: a replica waiting for the lease asks again.
    elsewhereUntil.delete(key);
    for (const listener of [...listeners]) listener(key);
  });

  const k = {
    epoch: `${prefix}epoch`,
    lease: (key: string) => `${prefix}lease:${key}`,
    fence: (key: string) => `${prefix}fence:${key}`,
    leader: (key: string) => `${prefix}leader:${key}`,
    snap: (key: string) => `${prefix}snap:${key}`,
    log: (key: string) => `${prefix}log:${key}`,
    watch: (group: string) => `${prefix}watch:${group}`,
  };
  const freshEpoch = () => randomUUID();

  return {
    owner,
    client: redis,
    get healthy() {
      return up === true;
    },
    connected(timeoutMs) {
      if (up) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          redis.off('ready', ready);
          resolve(false);
        }, timeoutMs);
        const ready = () => {
          clearTimeout(timer);
          resolve(true);
        };
        redis.once('ready', ready);
      });
    },
    async claim(key): Promise<Lease | null> {
      const now = Date.now();
      const mine = held.get(key);
      if (mine && now - mine.renewedAt < leaseMs / 2) return mine.lease;
      if (mine && now - mine.leaderAt < retentionMs / 2) {
        const value = await guard(redis.getex(k.lease(key), 'PX', leaseMs));
        if (value === mine.value) {
          mine.renewedAt = now;
          return mine.lease;
        }
        held.delete(key);
        if (value !== null) return null;
      }
      if (!mine && (elsewhereUntil.get(key) ?? 0) > now) return null;
      if (!mine) {
        const ttl = await guard(redis.pttl(k.lease(key)));
        if (ttl > 0) {
          elsewhereUntil.set(key, now + ttl);
          return null;
        }
      }
      const reply = (await run('rgClaim', k.lease(key), k.fence(key), k.leader(key), owner, leaseMs, retentionMs)) as [number, string | null] | null;
      if (!reply) {
        elsewhereUntil.delete(key);
        return null;
      }
      const lease = { token: Number(reply[0]), takenFrom: reply[1] ?? null };
      held.set(key, { value: `${owner}|${lease.token}`, lease: { token: lease.token, takenFrom: null }, renewedAt: now, leaderAt: now });
      return lease;
    },
    async release(key, token) {
      held.delete(key);
      await run('rgRelease', k.lease(key), k.leader(key), `${owner}|${token}`, channel, key);
    },
    async snapshot(key): Promise<Snapshot | null> {
      const held = await guard(redis.hgetall(k.snap(key)));
      if (held.state === undefined || !held.epoch || !held.id) return null;
      return { state: held.state, position: { epoch: held.epoch, id: held.id } };
    },
    async commit(key, token, state, events) {
      const reply = (await run(
        'rgCommit',
        k.lease(key),
        k.snap(key),
        k.log(key),
        k.epoch,
        `${owner}|${token}`,
        state,
        retentionMs,
        freshEpoch(),
        channel,
        key,
        ...events,
      )) as [string, string] | null;
      // Refused: the lease is no longer this replica's, whatever it last renewed.
      if (!reply) held.delete(key);
      return reply ? { epoch: reply[0], id: reply[1] } : null;
    },
    async tail(key): Promise<LogPosition> {
      const [epoch, id] = (await run('rgTail', k.log(key), k.epoch, freshEpoch())) as [string, string];
      return { epoch, id };
    },
    async read(key, from, maxAgeMs = 0): Promise<LogRead> {
      const reply = (await run('rgRead', k.log(key), k.epoch, freshEpoch(), from.epoch, from.id, maxAgeMs)) as [string, ...unknown[]];
      if (reply[0] === 'ahead') return { expired: true, ahead: true };
      if (reply[0] !== 'ok') return { expired: true, reason: reply[0] === 'other' ? EXPIRY.otherLog : EXPIRY.retention };
      const [, epoch, entries] = reply as ['ok', string, [string, string[]][]];
      return { expired: false, epoch, entries: entries.map(([id, fields]) => ({ id, data: fields[1] ?? '' })) };
    },
    onAppend(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async admit(group, member, max) {
      return (await run('rgAdmit', k.watch(group), member, owner, max, watchTtlMs)) === 1;
    },
    async dismiss(group, member) {
      await guard(redis.zrem(k.watch(group), `${member}\n${owner}`));
    },
    async refresh(group, members) {
      const now = Date.now();
      const list = members.join('\n');
      const last = refreshedAt.get(group);
      if (members.length === 0 || (last && last.members === list && now - last.at < leaseMs)) return;
      await run('rgRefresh', k.watch(group), owner, watchTtlMs, ...members);
      refreshedAt.set(group, { at: now, members: list });
    },
    async close() {
      listeners.clear();
      if (probe) clearInterval(probe);
      clearInterval(heartbeat);
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
