import type { SharedCacheStore } from '../cluster/cache-store.js';
import type { CacheSettings } from './config.js';
import { ReadCache, type CacheHooks } from './read-cache.js';

// The read cache under every operation's loaders as the configuration asks for it (src/app.ts composes it):
// none when CACHE_TTL_MS is 0, shared in Redis in cluster mode (docs/caching.md).

export function readCacheFromConfig(
  config: Pick<CacheSettings, 'CACHE_TTL_MS' | 'CACHE_STALE_IF_ERROR_MS' | 'CACHE_MAX_BYTES'>,
  shared: SharedCacheStore | undefined,
  hooks: CacheHooks,
): ReadCache | null {
  if (config.CACHE_TTL_MS <= 0) return null;
  return new ReadCache({
    ttlMs: config.CACHE_TTL_MS,
    staleIfErrorMs: config.CACHE_STALE_IF_ERROR_MS,
    maxBytes: config.CACHE_MAX_BYTES,
    shared,
    hooks,
  });
}
