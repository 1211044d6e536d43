import { redisPersistedDocuments, type PersistedDocumentStore } from '../cluster/persisted-documents.js';
import { connectRedis, redisHost } from '../cluster/redis.js';
import { createRedisStore } from '../cluster/redis-store.js';
import { redisLimits, type RedisLimits } from '../cluster/shared-limits.js';
import type { Config } from '../config.js';
import { createFailoverStore } from './failover-store.js';
import { createMemoryStore } from './memory-store.js';
import type { LiveStore } from './store.js';

// The one place that picks the mode: REDIS_URL set → cluster mode on Redis (with this replica's memory as the
// fallback while Redis is unreachable); unset → one process, everything in memory.

export interface LiveStoreHandle {
  store: LiveStore;
  /** Cluster mode: whether Redis answers now; null in memory mode. */
  redisUp(): boolean | null;
  /** Waits (bounded) for Redis before serving, so a replica starting with the cluster does not poll alone. */
  connected(timeoutMs: number): Promise<void>;
  /** Cluster mode: the Redis connection as the shared rate limit uses it; undefined in memory mode. */
  redis?: RedisLimits;
  /** Cluster mode: where automatic persisted queries are shared between replicas; undefined in memory mode. */
  persistedDocuments?: PersistedDocumentStore;
}

/** A change of Redis's state as an operator reads it: where (host and port only) and why. */
export interface RedisStateChange {
  up: boolean;
  host: string;
  reason: string;
}

export function createLiveStore(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_KEY_PREFIX' | 'REDIS_COMMAND_TIMEOUT_MS' | 'LIVE_LEASE_MS' | 'LIVE_RETENTION_MS'>,
  onRedisState?: (change: RedisStateChange) => void,
): LiveStoreHandle {
  const timing = { leaseMs: config.LIVE_LEASE_MS, retentionMs: config.LIVE_RETENTION_MS };
  const local = createMemoryStore(timing);
  if (!config.REDIS_URL) {
    return { store: local, redisUp: () => null, connected: async () => undefined };
  }
  const host = redisHost(config.REDIS_URL);
  const connection = connectRedis({ url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  const redis = createRedisStore(connection, timing);
  connection.onStateChange((up, reason) => onRedisState?.({ up, host, reason }));
  return {
    store: createFailoverStore(redis, local),
    redisUp: () => connection.healthy,
    connected: async (timeoutMs) => void (await connection.connected(timeoutMs)),
    redis: redisLimits(connection),
    persistedDocuments: redisPersistedDocuments(connection, config.REDIS_KEY_PREFIX),
  };
}
