// A token bucket per API key: a burst of `burst` operations is allowed at once, refilled at `perSecond`.
// In-memory and per instance (several replicas each allow the rate); the upstream's own adaptive limit is
// the backstop.

export interface RateLimitDecision {
  allowed: boolean;
  /** When refused: seconds until one operation is allowed again. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string): RateLimitDecision;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export function createRateLimiter(options: { perSecond: number; burst: number }, now: () => number = Date.now): RateLimiter {
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
