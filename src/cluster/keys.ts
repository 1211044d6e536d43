// Every Redis key and channel of the gateway, all under the prefix P (REDIS_KEY_PREFIX), so deployments (and
// tests) can share one Redis. docs/cluster.md#redis-keys lists them for operators: change both together.
//
// The hash tag rule (Redis Cluster): a script or multi-key command may touch only keys of one slot, and Redis
// hashes only the part of a name between the first `{` and the next `}` when there is one. So every key one
// script touches carries the same tag, and the tag is what the data is about: the watched key
// (`P{campaign:<uuid>}:lease`), the API key whose watches are counted, and so on. A feature that keeps something
// in Redis names its keys with `tagged(tag, name)` here, one tag per thing a script must see whole; a tag shared
// by everything (one hot slot) only for what is small and rare. The prefix never holds braces (config.ts), so
// the tag is always the one given. The same names work unchanged on one server and behind Sentinel.
//
// A channel is named the same way, and a feature publishes on it with RedisConnection.publish (or, inside a
// script, with the connection's `publishCommand`): on a Cluster that is sharded pub/sub (SPUBLISH), which
// reaches the subscribers of the channel's slot only, so a script may publish on a channel of its own slot.
//
//   P{<key>}:epoch          random id of the key's data; a Redis (or a shard) that lost it gets a new one,
//                           which turns every cursor issued before into CURSOR_EXPIRED
//   P{<key>}:lease          "<owner>|<token>", PX LIVE_LEASE_MS: who polls the key
//   P{<key>}:fence          the token counter: every new holder gets a larger token
//   P{<key>}:leader         last holder, deleted on a clean release: a claim that finds it is a takeover
//   P{<key>}:snap           hash {state, epoch, id}: the feed's state and the log position it reflects
//   P{<key>}:log            Stream of events (field `e`), trimmed to LIVE_RETENTION_MS by MINID
//   P{<key>}:appended       channel: the key, on every commit that appended and every release, waking the
//                           replicas that watch it
//   P{watch:<group>}        sorted set "<member>\n<owner>" → expiry: the orders (or subscriptions) each API key
//                           has, per replica
//   P ratelimit:<api key>   the key's operations in the current window (rate-limiter-flexible appends ":<key>")
//   P replicas              sorted set replica id → when its heartbeat lapses
//   P{cache:<group>}:entries  hash of the read cache's entries of one object (cluster/cache-store.ts), with
//                           P{cache:<group>}:ver (its invalidation count) and P{cache:<group>}:fill:<field>
//                           (who reads it from the upstream now)
//   P{cache}:invalidated    channel: the group of every cache invalidation, for the replicas' memory layers
//   P{webhook:<id>}:…       a webhook endpoint, its queue and recent deliveries (cluster/webhook-records.ts);
//                           its lease is the live lease of the key `webhook:<id>`
//   P{webhooks}:all, P{webhooks}:owner:<caller>  sets of endpoint ids
//   P{mcp:<session>}:subs   hash resource URI → hash of what the session's client was last told of it: an MCP
//                           session's resource subscriptions (cluster/mcp-subscriptions.ts), expiring unless used
//   P{mcp:<session>}:stream   the number (Redis's clock) of the session's newest event stream, which wins
//   P{mcp:<session>}:ended    the session was ended (DELETE /mcp), for a day: a request naming it is a 404
//   P{mcp:<session>}:changed  channel: a subscription of the session came or went, or a newer stream claimed it
//   P{apq:<sha256>}:document, P{apq-caller:<caller>}:charged|sizes  automatic persisted queries and each
//                           caller's registrations of them (cluster/persisted-documents.ts)

export function clusterKeys(prefix: string) {
  /** A key (or channel) of `name` in the slot of `tag`: every name with the same tag shares a slot. */
  const tagged = (tag: string, name: string) => `${prefix}{${tag}}:${name}`;
  return {
    tagged,
    epoch: (key: string) => tagged(key, 'epoch'),
    lease: (key: string) => tagged(key, 'lease'),
    fence: (key: string) => tagged(key, 'fence'),
    leader: (key: string) => tagged(key, 'leader'),
    snap: (key: string) => tagged(key, 'snap'),
    log: (key: string) => tagged(key, 'log'),
    appended: (key: string) => tagged(key, 'appended'),
    watch: (group: string) => `${prefix}{watch:${group}}`,
    rateLimit: `${prefix}ratelimit`,
    replicas: `${prefix}replicas`,
    cache: (group: string) => ({
      entries: tagged(`cache:${group}`, 'entries'),
      version: tagged(`cache:${group}`, 'ver'),
      fill: (field: string) => tagged(`cache:${group}`, `fill:${field}`),
    }),
    // One channel for all invalidations (one slot on a Cluster): small messages, one per write or change seen.
    cacheInvalidated: tagged('cache', 'invalidated'),
  };
}

export type ClusterKeys = ReturnType<typeof clusterKeys>;
