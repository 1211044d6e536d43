// Every Redis key and channel of the gateway, all under the prefix P (REDIS_KEY_PREFIX), so deployments (and
// tests) can share one Redis. docs/cluster.md#redis-keys lists them for operators: change both together.
//
//   P epoch                 random id of this Redis's data; a Redis restarted empty gets a new one, which
//                           turns every cursor issued before into CURSOR_EXPIRED
//   P lease:<key>           "<owner>|<token>", PX LIVE_LEASE_MS: who polls the key
//   P fence:<key>           the token counter: every new holder gets a larger token
//   P leader:<key>          last holder, deleted on a clean release: a claim that finds it is a takeover
//   P snap:<key>            hash {state, epoch, id}: the feed's state and the log position it reflects
//   P log:<key>             Stream of events (field `e`), trimmed to LIVE_RETENTION_MS by MINID
//   P watch:<group>         sorted set "<member>\n<owner>" → expiry: the orders (or subscriptions) each API key
//                           has, per replica
//   P ratelimit:<api key>   the key's operations in the current window (rate-limiter-flexible appends ":<key>")
//   P replicas              sorted set replica id → when its heartbeat lapses
//   P cache:{<group>}       hash of the read cache's entries of one object (cluster/cache-store.ts), with
//                           P cache:{<group>}:ver (its invalidation count) and P cache:{<group>}:fill:<field>
//                           (who reads it from the upstream now); the braces keep them in one Redis Cluster slot
// Channel P appended carries the key of every commit that appended, waking the replicas that watch it.
// Channel P cache-invalidated carries the group of every cache invalidation, for the replicas' memory.

export function clusterKeys(prefix: string) {
  return {
    epoch: `${prefix}epoch`,
    lease: (key: string) => `${prefix}lease:${key}`,
    fence: (key: string) => `${prefix}fence:${key}`,
    leader: (key: string) => `${prefix}leader:${key}`,
    snap: (key: string) => `${prefix}snap:${key}`,
    log: (key: string) => `${prefix}log:${key}`,
    watch: (group: string) => `${prefix}watch:${group}`,
    rateLimit: `${prefix}ratelimit`,
    replicas: `${prefix}replicas`,
    appended: `${prefix}appended`,
    cache: (group: string) => `${prefix}cache:{${group}}`,
    cacheInvalidated: `${prefix}cache-invalidated`,
  };
}

export type ClusterKeys = ReturnType<typeof clusterKeys>;
