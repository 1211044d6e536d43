import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './redis.js';

// The read cache's shared layer in cluster mode (src/cache/ is the cache; this is only what it keeps in Redis).
// One object of the reward API (an order, a reward, an order's reward pages, the balances) is one group: a hash
// `P{cache:<group>}:entries` whose fields are its cached answers, each "<filled at, ms>|<answer>". The braces make every
// key of a group one Redis Cluster slot, so each script below touches one slot.
//
// Filling is single-flight across replicas: the first replica to miss takes `…:fill:<field>` (SET NX, a few
// seconds) and reads the upstream; the others see the claim and wait for its fill instead of reading too.
// Invalidation deletes the group and counts up `…:ver`; a fill carries the count it started under and is
// dropped if it changed, so a read that began before a write never stores the state from before it.

export type CacheClaim =
  /** A fresh entry. */
  | { state: 'fresh'; entry: string }
  /** Ours to fill; `entry` is an expired one still kept (for stale-if-error), if any. */
  | { state: 'fill'; version: string; owner: string; entry: string | null }
  /** Another replica is filling it now. */
  | { state: 'wait'; entry: string | null };

export interface SharedCacheStore {
  /** The field's entry if it is younger than `ttlMs`, else the right to fill it (for `fillMs`) or a wait. */
  claim(group: string, field: string, ttlMs: number, fillMs: number): Promise<CacheClaim>;
  /** Gives a claim up without filling (the read failed), so the replicas waiting for it read themselves. */
  release(group: string, field: string, owner: string): Promise<void>;
  /** Stores an entry read under `claim`'s version, for `keepMs`; false when the group was invalidated since. */
  fill(group: string, field: string, entry: string, claim: { version: string; owner: string }, keepMs: number): Promise<boolean>;
  /** Deletes the groups in Redis, then tells every replica (onInvalidated). */
  invalidate(groups: string[]): Promise<void>;
  /** Calls `listener` with each invalidated group, and with null when notifications may have been missed. */
  onInvalidated(listener: (group: string | null) => void): () => void;
  /** Whether Redis answers now. */
  readonly healthy: boolean;
}

// "<filled at>|…": the age is judged here, in one round trip with the claim, by the caller's clock (ARGV[1]).
const CLAIM = `
local entry = redis.call('HGET', KEYS[1], ARGV[2])
if entry then
  local filled = tonumber(string.match(entry, '^(%d+)|'))
  if filled and tonumber(ARGV[1]) - filled <= tonumber(ARGV[3]) then return {'fresh', entry} end
end
local version = redis.call('GET', KEYS[2]) or '0'
if redis.call('SET', KEYS[3], ARGV[5], 'NX', 'PX', ARGV[4]) then return {'fill', version, entry} end
return {'wait', version, entry}
`;

const FILL = `
local stored = 0
if (redis.call('GET', KEYS[2]) or '0') == ARGV[3] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  stored = 1
end
if redis.call('GET', KEYS[3]) == ARGV[5] then redis.call('DEL', KEYS[3]) end
return stored
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

// The count outlives any fill in flight (a fill that finds it gone, '0', is dropped as well).
const INVALIDATE = `
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`;

/** How long an invalidation count is kept: longer than any upstream read takes (retry budget included). */
const VERSION_KEEP_MS = 120_000;

interface CacheCommands {
  rgCacheClaim(
    entries: string,
    version: string,
    fill: string,
    now: number,
    field: string,
    ttl: number,
    fillMs: number,
    owner: string,
  ): Promise<(string | null)[]>;
  rgCacheFill(
    entries: string,
    version: string,
    fill: string,
    field: string,
    entry: string,
    expected: string,
    keepMs: number,
    owner: string,
  ): Promise<number>;
  rgCacheInvalidate(entries: string, version: string, keepMs: number): Promise<number>;
  rgCacheRelease(fill: string, owner: string): Promise<number>;
}

export function redisCacheStore(connection: RedisConnection): SharedCacheStore {
  const { client, keys } = connection;
  client.defineCommand('rgCacheClaim', { lua: CLAIM, numberOfKeys: 3 });
  client.defineCommand('rgCacheFill', { lua: FILL, numberOfKeys: 3 });
  client.defineCommand('rgCacheInvalidate', { lua: INVALIDATE, numberOfKeys: 2 });
  client.defineCommand('rgCacheRelease', { lua: RELEASE, numberOfKeys: 1 });
  const commands = client as unknown as CacheCommands;
  const entries = (group: string) => keys.cache(group).entries;
  const version = (group: string) => keys.cache(group).version;
  const filling = (group: string, field: string) => keys.cache(group).fill(field);

  const listeners = new Set<(group: string | null) => void>();
  const channel = keys.cacheInvalidated;
  // This replica's own drops, published and not yet heard back. The writer has dropped them and told its
  // listeners already; hearing them again re-resolved its live queries a second time, and the echo could take
  // the place of the write as the cause. Redis delivers a channel's messages in the order they were published,
  // so skipping as many messages of a group as this replica published leaves the last one of any other replica
  // heard after its change, whichever of the two came first.
  const unheard = new Map<string, number>();
  connection.subscribe(channel, (group) => {
    const own = unheard.get(group) ?? 0;
    if (own > 0) {
      if (own === 1) unheard.delete(group);
      else unheard.set(group, own - 1);
      return;
    }
    for (const listener of [...listeners]) listener(group);
  });
  // What was published while the notifications' connection was down is lost: once it is back, every replica
  // drops its memory layer (the entries in Redis were deleted by the writer itself), and its own echoes with it.
  connection.onResubscribed(() => {
    unheard.clear();
    for (const listener of [...listeners]) listener(null);
  });
  const publish = async (group: string) => {
    unheard.set(group, (unheard.get(group) ?? 0) + 1);
    try {
      await connection.publish(channel, group);
    } catch (error) {
      // Not published, so never heard back.
      const own = (unheard.get(group) ?? 1) - 1;
      if (own > 0) unheard.set(group, own);
      else unheard.delete(group);
      throw error;
    }
  };

  return {
    get healthy() {
      return connection.healthy;
    },
    async claim(group, field, ttlMs, fillMs) {
      const owner = randomUUID();
      const reply = await connection.guard(
        commands.rgCacheClaim(entries(group), version(group), filling(group, field), Date.now(), field, ttlMs, fillMs, owner),
      );
      const [state, a, b] = reply;
      if (state === 'fresh') return { state, entry: a! };
      if (state === 'fill') return { state, version: a!, owner, entry: b ?? null };
      return { state: 'wait', entry: b ?? null };
    },
    release: async (group, field, owner) => void (await connection.guard(commands.rgCacheRelease(filling(group, field), owner))),
    async fill(group, field, entry, claim, keepMs) {
      const stored = await connection.guard(
        commands.rgCacheFill(entries(group), version(group), filling(group, field), field, entry, claim.version, keepMs, claim.owner),
      );
      return stored === 1;
    },
    async invalidate(groups) {
      await Promise.all(groups.map((group) => connection.guard(commands.rgCacheInvalidate(entries(group), version(group), VERSION_KEEP_MS))));
      await Promise.all(groups.map(publish));
    },
    onInvalidated(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
