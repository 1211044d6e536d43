import { configArea, count, documented, nonNegativeMs, type AreaSettings } from '../shared/config-area.js';

// The read cache's environment variables (src/cache/), composed by src/config.ts. docs/caching.md says what
// each guarantees and how to size them.

export const cacheArea = configArea({
  title: 'Read cache',
  variables: {
    CACHE_TTL_MS: documented(nonNegativeMs.default(5_000), {
      description:
        'how long an order, reward, reward page or balance read from the reward API answers later reads (writes and pollers drop what they change sooner); 0 turns the cache off ([docs/caching.md](docs/caching.md))',
    }),
    CACHE_MAX_BYTES: documented(count.default(64 * 1024 * 1024), {
      description: "memory this replica's cache may hold (answers as JSON text); the least recently used go first",
    }),
    CACHE_STALE_IF_ERROR_MS: documented(nonNegativeMs.default(600_000), {
      description:
        'how long past CACHE_TTL_MS a cached answer may still be given, marked `extensions.stale: true`, while the reward API fails or is unreachable',
    }),
  },
});

export type CacheSettings = AreaSettings<typeof cacheArea>;
