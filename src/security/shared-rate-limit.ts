import { createRequire } from 'node:module';
import type { RedisLimits } from '../cluster/shared-limits.js';
import type { RateLimitDecision, RateLimiter } from './rate-limit.js';

// Cluster mode's rate limit: each API key's count lives in Redis (rate-limiter-flexible's RateLimiterRedis, one
// atomic script per take), so a key's burst spread over any number of replicas admits one burst, not one per
// replica. No operation waits longer than `timeoutMs` for Redis: when Redis is unreachable, hangs or fails, the
// insurance limiter in this replica's memory decides, with the key's limit divided by the replicas last known
// to share it, so the cluster as a whole still admits about the limit: never open, never closed.
//
// The library counts fixed windows, not a token bucket: a key may spend RATE_LIMIT_BURST operations per window
// of RATE_LIMIT_BURST / RATE_LIMIT_PER_SECOND seconds (rounded up to whole seconds, the library's unit). The
// burst and the long-run rate are those of the bucket; what differs is that the window refills all at once
// when it ends rather than one operation every 1 / RATE_LIMIT_PER_SECOND, so a key that spent its burst waits
// for the window's end (Retry-After says how long), and two bursts may meet across a window's edge.

export interface SharedRateLimitOptions {
  perSecond: number;
  burst: number;
  /** REDIS_COMMAND_TIMEOUT_MS: the longest a take waits for Redis before this replica's share decides. */
  timeoutMs: number;
  /** The replicas sharing the limit, as last known (replica-registry.ts). */
  replicas(): number;
}

export function createSharedRateLimiter(redis: RedisLimits, options: SharedRateLimitOptions): RateLimiter {
  // Loaded here, in cluster mode only, like ioredis: a one-process gateway never uses it.
  const { RateLimiterMemory, RateLimiterRes, RLWrapperTimeouts } = createRequire(import.meta.url)(
    'rate-limiter-flexible',
  ) as typeof import('rate-limiter-flexible');
  const duration = Math.max(1, Math.ceil(options.burst / options.perSecond));
  const local = new RateLimiterMemory({ points: options.burst, duration });
  const limiter = new RLWrapperTimeouts({
    // Not ready (disconnected): the insurance answers at once instead of the command failing after a wait.
    limiter: redis.windowCounter(options.burst, duration),
    timeoutMs: options.timeoutMs,
    insuranceLimiter: local,
  });

  return {
    async take(key): Promise<RateLimitDecision> {
      // The share follows the count: a replica that joins or leaves changes every other replica's share.
      local.points = Math.max(1, Math.floor(options.burst / Math.max(1, options.replicas())));
      try {
        await limiter.consume(key);
        return { allowed: true, retryAfterSeconds: 0 };
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)) };
      }
    },
  };
}
