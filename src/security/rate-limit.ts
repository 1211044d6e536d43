// A token bucket per API key: a burst of `burst` operations is allowed at once, refilled at `perSecond`.
// This one is in memory, for a single process; cluster mode counts in Redis instead (shared-rate-limit.ts).

export interface RateLimitDecision {
  allowed: boolean;
  /** When refused: seconds until one operation is allowed again. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string): RateLimitDecision | Promise<RateLimitDecision>;
}

export interface LocalRateLimiter extends RateLimiter {
  take(key: string): RateLimitDecision;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export function createRateLimiter(options: { perSecond: number; burst: number }, now: () => number = Date.now): LocalRateLimiter {
  const buckets = new Map<string, Bucket>();
  return {
    take(key) {
      const at = now();
      const bucket = buckets.get(key) ?? { tokens: options.burst, updatedAt: at };
      bucket.tokens = Math.min(options.burst, bucket.tokens + ((at - bucket.updatedAt) / 1000) * options.perSecond);
      bucket.updatedAt = at;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, retryAfterSeconds: 0 };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond)) };
    },
  };
}
