import type { RateLimitDecision, RateLimiter } from './rate-limit.js';

// Cluster mode's rate limit: each API key's token bucket lives in Redis (one atomic script per take), so a
// key's burst spread over any number of replicas admits one burst, not one per replica. While Redis is
// unreachable, or a take fails, the replica's own bucket decides: never open, never closed.

export interface SharedBucket {
  take(key: string, perSecond: number, burst: number): Promise<RateLimitDecision>;
  healthy(): boolean;
}

export function createSharedRateLimiter(shared: SharedBucket, local: RateLimiter, options: { perSecond: number; burst: number }): RateLimiter {
  return {
    async take(key) {
      if (!shared.healthy()) return local.take(key);
      try {
        return await shared.take(key, options.perSecond, options.burst);
      } catch {
        return local.take(key);
      }
    },
  };
}
