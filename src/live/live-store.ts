import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { createFailoverStore } from './failover-store.js';
import { createMemoryStore } from './memory-store.js';
import { createRedisStore } from './redis-store.js';
import type { LiveStore } from './store.js';

// The one place that picks the mode: REDIS_URL set → cluster mode on Redis (with this replica's memory as the
// fallback while Redis is unreachable); unset → one process, everything in memory.

export interface LiveStoreHandle {
  store: LiveStore;
  /** Cluster mode: whether Redis answers now; null in memory mode. */
  redisUp(): boolean | null;
  /** Waits (bounded) for Redis before serving, so a replica starting with the cluster does not poll alone. */
  connected(timeoutMs: number): Promise<void>;
  /** Cluster mode: the Redis connection, which the shared rate limit uses too; undefined in memory mode. */
  redis?: Redis;
}

export function createLiveStore(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_KEY_PREFIX' | 'LIVE_LEASE_MS' | 'LIVE_RETENTION_MS'>,
  onRedisState?: (up: boolean) => void,
): LiveStoreHandle {
  const timing = { leaseMs: config.LIVE_LEASE_MS, retentionMs: config.LIVE_RETENTION_MS };
  const local = createMemoryStore(timing);
  if (!config.REDIS_URL) {
    return { store: local, redisUp: () => null, connected: async () => undefined };
  }
  const redis = createRedisStore({ ...timing, url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX, onStateChange: onRedisState });
  return {
    store: createFailoverStore(redis, local),
    redisUp: () => redis.healthy,
    connected: async (timeoutMs) => void (await redis.connected(timeoutMs)),
    redis: redis.client,
  };
}
