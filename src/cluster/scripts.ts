// The Lua scripts of the cluster. A Redis script runs alone, so a lease check and the writes it guards cannot
// interleave with another replica's: every step that must be atomic is one script. Key names: keys.ts; every
// script's keys (and the channel it publishes on) share one hash tag, so each runs on one slot of a Cluster.
// Scripts that publish are given the command (PUBLISH, or SPUBLISH on a Cluster: RedisConnection.publishCommand).

// KEYS lease fence leader; ARGV owner leaseMs retentionMs. Replies {token, previous holder or false}, or false
// while another replica holds the lease.
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

// KEYS lease; ARGV leaseValue leaseMs. Extends the lease only if it still holds this replica's token; replies
// the value found (false when none), so the caller learns whether it still holds the key.
const RENEW = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return cur
`;

// KEYS lease leader; ARGV leaseValue publishCommand channel key. Publishes the key so replicas waiting for the
// lease to lapse look again at once.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('DEL', KEYS[2])
  redis.call(ARGV[2], ARGV[3], ARGV[4])
end
return 1
`;

/**
 * Shared by the scripts that touch the log: the key's epoch (created on first use, kept as long as the log) and
 * the stream's ids.
 */
const LOG_HELPERS = `
local function epoch_of(key, fresh, ttl)
  local epoch = redis.call('GET', key)
  if not epoch then
    redis.call('SET', key, fresh, 'PX', ttl)
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

// KEYS lease snap log epoch; ARGV leaseValue state retention freshEpoch publishCommand channel key events...
const COMMIT = `${LOG_HELPERS}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local retention = tonumber(ARGV[3])
local epoch = epoch_of(KEYS[4], ARGV[4], retention)
redis.call('PEXPIRE', KEYS[4], retention)
local minid = tostring(math.max(0, now_ms() - retention))
local id = nil
for i = 8, #ARGV do
  id = redis.call('XADD', KEYS[3], 'MINID', minid, '*', 'e', ARGV[i])
end
if id then
  redis.call('PEXPIRE', KEYS[3], retention)
  redis.call(ARGV[5], ARGV[6], ARGV[7])
else
  local ids = stream_ids(KEYS[3])
  id = ids and ids['last-generated-id'] or '0-0'
end
redis.call('HSET', KEYS[2], 'state', ARGV[2], 'epoch', epoch, 'id', id)
redis.call('PEXPIRE', KEYS[2], retention)
return {epoch, id}
`;

// KEYS log epoch; ARGV freshEpoch retention
const TAIL = `${LOG_HELPERS}
local epoch = epoch_of(KEYS[2], ARGV[1], ARGV[2])
local ids = stream_ids(KEYS[1])
return {epoch, ids and ids['last-generated-id'] or '0-0'}
`;

// KEYS log epoch; ARGV freshEpoch fromEpoch fromId maxAgeMs (0: no age limit) retention. Replies {'old'} (too
// old or trimmed: a key's epoch lapses with its log, so age is told first), {'other'} (another log's position),
// {'ahead'} (past this log's end: never issued) or the entries.
const READ = `${LOG_HELPERS}
local epoch = epoch_of(KEYS[2], ARGV[1], ARGV[5])
local from = ARGV[3]
local max_age = tonumber(ARGV[4])
local ms = parse_id(from)
local now = now_ms()
if max_age > 0 and ms < now - max_age then return {'old'} end
if ARGV[2] ~= epoch then return {'other'} end
if ms > now then return {'ahead'} end
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

// KEYS replicas; ARGV id ttl. Refreshes the replica's entry and counts the live ones (security/replica-registry.ts).
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
`;

/** Each script as a command of the connection (ioredis defineCommand), with its number of keys. */
// KEYS charged sizes; ARGV hash bytes ttlMs maxDocuments maxBytes. One caller's registrations of automatic
// persisted queries (cluster/persisted-documents.ts): `charged` is a sorted set of document hash → when the
// registration lapses, `sizes` a hash of hash → bytes. Refreshes a registration, or adds it when the caller's
// unexpired registrations stay within both bounds. Replies 1 (the document may be stored), or 0 past a bound.
const APQ_ADMIT = `${LOG_HELPERS}
local now = now_ms()
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  for _, hash in ipairs(expired) do redis.call('HDEL', KEYS[2], hash) end
end
local ttl = tonumber(ARGV[3])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
  local used = 0
  for _, bytes in ipairs(redis.call('HVALS', KEYS[2])) do used = used + tonumber(bytes) end
  if used + tonumber(ARGV[2]) > tonumber(ARGV[5]) then return 0 end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`;

// KEYS subs; ARGV uri hash max ttlMs channel publishCommand. An MCP session's subscription to `uri` (its hash: the
// resource as read when subscribing), unless the session follows `max` others already (then replies their count);
// the count and the write are one step, so concurrent subscribes cannot pass the cap together. Tells the replica
// holding the session's stream (the channel) and keeps the session's subscriptions ttlMs from now.
const MCP_SUBSCRIBE = `
local count = redis.call('HLEN', KEYS[1])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and count >= tonumber(ARGV[3]) then return count end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call(ARGV[6], ARGV[5], 'changed')
return -1
`;

// KEYS subs; ARGV uri hash. What a session's stream last told its client of `uri`, if it is still subscribed
// (an unsubscribe in between wins: nothing is re-added). Nobody is told: the set of URIs is unchanged.
const MCP_SEEN = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
`;

// A stream of an MCP session claims it (the stream key `stream`; ARGV ttl channel publishCommand): its number is
// Redis's clock (seconds and microseconds, as digits), so a later stream's is greater even after Redis restarted
// empty, which a counter would start again from 1. Kept (for streams that missed the message) and said on the
// channel; the script replies it.
const claimStream = (stream: string) => `
local t = redis.call('TIME')
local n = t[1] .. string.format('%06d', tonumber(t[2]))
redis.call('SET', ${stream}, n, 'PX', ARGV[1])
redis.call(ARGV[3], ARGV[2], 'stream:' .. n)
return n
`;

// KEYS stream; ARGV ttl channel publishCommand. A new stream's claim.
const MCP_STREAM = claimStream('KEYS[1]');

// KEYS subs stream ended; ARGV ttl channel publishCommand uri hash [uri hash …]. A stream whose session Redis lost
// (it restarted empty: neither the subscriptions nor any stream's claim are left) writes back what it followed
// and claims the session again; unless a claim exists by then (another stream, or a restore already made), which
// keeps what Redis holds, or the session was ended since. Replies the stream's number, 0 when another claim
// exists, -1 when the session was ended.
const MCP_RESTORE = `
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
${claimStream('KEYS[2]')}`;

// KEYS ended subs; ARGV ttl channel publishCommand. Ends an MCP session in one step: marked ended for the time to
// live, its subscriptions dropped, its stream told. A DELETE whose answer was lost has then either done all of it
// or nothing, and the one sent again finds the session ended (a 404) only when it was.
const MCP_END = `
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('DEL', KEYS[2])
redis.call(ARGV[3], ARGV[2], 'changed')
return 1
`;

export const SCRIPTS = {
  rgClaim: { lua: CLAIM, keys: 3 },
  rgRenew: { lua: RENEW, keys: 1 },
  rgRelease: { lua: RELEASE, keys: 2 },
  rgCommit: { lua: COMMIT, keys: 4 },
  rgTail: { lua: TAIL, keys: 2 },
  rgRead: { lua: READ, keys: 2 },
  rgAdmit: { lua: ADMIT, keys: 1 },
  rgRefresh: { lua: REFRESH, keys: 1 },
  rgReplicaBeat: { lua: BEAT, keys: 1 },
  rgApqAdmit: { lua: APQ_ADMIT, keys: 2 },
  rgMcpSubscribe: { lua: MCP_SUBSCRIBE, keys: 1 },
  rgMcpSeen: { lua: MCP_SEEN, keys: 1 },
  rgMcpStream: { lua: MCP_STREAM, keys: 1 },
  rgMcpRestore: { lua: MCP_RESTORE, keys: 3 },
  rgMcpEnd: { lua: MCP_END, keys: 2 },
} as const;

export type ScriptName = keyof typeof SCRIPTS;
