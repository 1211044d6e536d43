import { redisCacheStore, type SharedCacheStore } from '../cluster/cache-store.js';
import type { ClusterSettings } from '../cluster/config.js';
import { redisMcpSubscriptions, type McpSubscriptionRecords } from '../cluster/mcp-subscriptions.js';
import { connectRedis } from '../cluster/redis.js';
import { redisPersistedDocuments, type PersistedDocumentStore } from '../cluster/persisted-documents.js';
import { createRedisStore } from '../cluster/redis-store.js';
import { redisLimits, type RedisLimits } from '../cluster/shared-limits.js';
import { redisHost, redisTarget } from '../cluster/target.js';
import { redisUpstreamBudget, type SharedUpstreamBudget } from '../cluster/upstream-budget.js';
import { redisWebhookRecords, type WebhookRecords } from '../cluster/webhook-records.js';
import type { LiveSettings } from './config.js';
import { createFailoverStore } from './failover-store.js';
import { createMemoryStore } from './memory-store.js';
import type { LiveStore } from './store.js';

// The one place that picks the mode: REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES set → cluster mode on
// Redis (with this replica's memory as the fallback while Redis is unreachable); none → one process, everything
// in memory.

export interface LiveStoreHandle {
  store: LiveStore;
  /** Cluster mode: whether Redis answers now; null in memory mode. */
  redisUp(): boolean | null;
  /** Waits (bounded) for Redis before serving, so a replica starting with the cluster does not poll alone. */
  connected(timeoutMs: number): Promise<void>;
  /** Cluster mode: the Redis connection as the shared rate limit uses it; undefined in memory mode. */
  redis?: RedisLimits;
  /** Cluster mode: the read cache's shared layer (src/cache/); undefined in memory mode. */
  cache?: SharedCacheStore;
  /** Cluster mode: the upstream budget every replica takes from (UPSTREAM_RATE_LIMIT_PER_SECOND); undefined in memory mode. */
  upstreamBudget?: (limits: { rate: number; burst: number }) => SharedUpstreamBudget;
  /** Cluster mode: where automatic persisted queries are shared between replicas; undefined in memory mode. */
  persistedDocuments?: PersistedDocumentStore;
  /** Cluster mode: webhook endpoints and their queues, shared by the replicas; undefined in memory mode. */
  webhookRecords?: WebhookRecords;
  /** Cluster mode: MCP sessions' resource subscriptions, made on any replica, followed by the one with the stream. */
  mcpSubscriptions?: McpSubscriptionRecords;
}

/** A change of Redis's state as an operator reads it: where (host and port only) and why. */
export interface RedisStateChange {
  up: boolean;
  host: string;
  reason: string;
}

export function createLiveStore(
  config: Pick<
    ClusterSettings,
    | 'REDIS_URL'
    | 'REDIS_SENTINELS'
    | 'REDIS_SENTINEL_MASTER'
    | 'REDIS_SENTINEL_PASSWORD'
    | 'REDIS_CLUSTER_NODES'
    | 'REDIS_USERNAME'
    | 'REDIS_PASSWORD'
    | 'REDIS_TLS'
    | 'REDIS_KEY_PREFIX'
    | 'REDIS_COMMAND_TIMEOUT_MS'
  > &
    Pick<LiveSettings, 'LIVE_LEASE_MS' | 'LIVE_RETENTION_MS'>,
  onRedisState?: (change: RedisStateChange) => void,
): LiveStoreHandle {
  const timing = { leaseMs: config.LIVE_LEASE_MS, retentionMs: config.LIVE_RETENTION_MS };
  const local = createMemoryStore(timing);
  const target = redisTarget(config);
  if (!target) {
    return { store: local, redisUp: () => null, connected: async () => undefined };
  }
  const host = redisHost(target);
  const connection = connectRedis({
    target,
    tls: config.REDIS_TLS,
    username: config.REDIS_USERNAME,
    password: config.REDIS_PASSWORD,
    prefix: config.REDIS_KEY_PREFIX,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  const redis = createRedisStore(connection, timing);
  connection.onStateChange((up, reason) => onRedisState?.({ up, host, reason }));
  return {
    store: createFailoverStore(redis, local),
    redisUp: () => connection.healthy,
    connected: async (timeoutMs) => void (await connection.connected(timeoutMs)),
    redis: redisLimits(connection),
    cache: redisCacheStore(connection),
    upstreamBudget: (limits) => redisUpstreamBudget(connection, config.REDIS_KEY_PREFIX, limits),
    persistedDocuments: redisPersistedDocuments(connection),
    webhookRecords: redisWebhookRecords(connection),
    mcpSubscriptions: redisMcpSubscriptions(connection),
  };
}
