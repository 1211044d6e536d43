import { createRequire } from 'node:module';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConnection } from './redis.js';

// What the rate limit keeps in Redis (security/shared-rate-limit.ts, security/replica-registry.ts): the count
// of each API key's window, and the entries of the replicas sharing the limit. Its commands go on the command
// connection outside the live store's watch for a hang (RedisConnection.guard): the rate limit bounds its own
// waits (RLWrapperTimeouts, the registry's timer) and falls back to each replica's share of the limit.

export interface RedisLimits {
  /**
   * rate-limiter-flexible's RateLimiterRedis: `points` per window of `duration` seconds for each key, counted
   * in `P ratelimit:<key>`; rejects at once while the connection is not ready.
   */
  windowCounter(points: number, duration: number): RateLimiterAbstract;
  /** Refreshes replica `id`'s entry of `P replicas` for `ttlMs` and counts the live entries, in one script. */
  beat(id: string, ttlMs: number): Promise<number>;
  /** Removes replica `id`'s entry, so the others count one fewer at once. */
  leave(id: string): Promise<unknown>;
}

export function redisLimits({ client, keys }: RedisConnection): RedisLimits {
  const commands = client as unknown as { rgReplicaBeat(key: string, id: string, ttlMs: number): Promise<number> };
  return {
    windowCounter(points, duration) {
      // Loaded here, in cluster mode only, like ioredis: a one-process gateway never uses it.
      const { RateLimiterRedis } = createRequire(import.meta.url)('rate-limiter-flexible') as typeof import('rate-limiter-flexible');
      return new RateLimiterRedis({ storeClient: client, keyPrefix: keys.rateLimit, points, duration, rejectIfRedisNotReady: true });
    },
    beat: (id, ttlMs) => commands.rgReplicaBeat(keys.replicas, id, ttlMs),
    leave: (id) => client.zrem(keys.replicas, id),
  };
}
