import { LRUCache } from 'lru-cache';
import type { Brand, Region, UpstreamClient } from '../upstream/types.js';

// Brand details and regions change rarely and every nested read asks for them, so they live in one
// process-wide cache shared by all requests. lru-cache's fetch() also collapses concurrent misses for the
// same key into one upstream call, which a per-request DataLoader cannot do across requests.

export interface CatalogCache {
  brand(code: string): Promise<Brand | null>;
  regions(): Promise<Region[]>;
}

// Shared fetches deliberately ignore any one request's abort signal: another request may be waiting on the
// same fetch, and the client's own timeout still bounds it.

// lru-cache cannot store null; an unknown brand is remembered as this marker.
interface Entry<T> {
  value: T;
}

const MAX_BRANDS = 5_000;

export function createCatalogCache(client: UpstreamClient, ttlMs: number): CatalogCache {
  if (ttlMs === 0) {
    return {
      brand: (code) => client.getBrand(code),
      regions: () => client.listRegions(),
    };
  }
  const brands = new LRUCache<string, Entry<Brand | null>>({
    max: MAX_BRANDS,
    ttl: ttlMs,
    fetchMethod: async (code) => ({ value: await client.getBrand(code) }),
  });
  const regions = new LRUCache<'all', Entry<Region[]>>({
    max: 1,
    ttl: ttlMs,
    fetchMethod: async () => ({ value: await client.listRegions() }),
  });
  return {
    async brand(code) {
      const entry = await brands.fetch(code);
      return entry?.value ?? null;
    },
    async regions() {
      const entry = await regions.fetch('all');
      return entry?.value ?? [];
    },
  };
}
