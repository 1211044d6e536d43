import { LRUCache } from 'lru-cache';
import type { Brand, Region, UpstreamClient } from '../upstream/types.js';
import { listBrandCodes, matchBrandCode } from './brand-codes.js';

// Brand details and regions change rarely and every nested read asks for them, so they live in one
// process-wide cache shared by all requests. lru-cache's fetch() also collapses concurrent misses for the
// same key into one upstream call, which a per-request DataLoader cannot do across requests.

export interface CatalogCache {
  /** By code, ignoring case (the result carries the catalog's spelling); null when no brand has it. */
  brand(code: string): Promise<Brand | null>;
  /** Every brand code, for suggestions when a code is unknown. */
  brandCodes(): Promise<string[]>;
  regions(): Promise<Region[]>;
}

/** The exact lookup first (the common case costs nothing more); on a miss, the catalog's code list. */
async function brandIgnoringCase(
  code: string,
  exact: (code: string) => Promise<Brand | null>,
  codes: () => Promise<string[]>,
): Promise<Brand | null> {
  const brand = await exact(code);
  if (brand) return brand;
  const match = matchBrandCode(code, await codes()).code;
  return match && match !== code ? exact(match) : null;
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
    const brandCodes = () => listBrandCodes(client);
    return {
      brand: (code) => brandIgnoringCase(code, (c) => client.getBrand(c), brandCodes),
      brandCodes,
      regions: () => client.listRegions(),
    };
  }
  const brands = new LRUCache<string, Entry<Brand | null>>({
    max: MAX_BRANDS,
    ttl: ttlMs,
    fetchMethod: async (code) => ({ value: await client.getBrand(code) }),
  });
  const codes = new LRUCache<'all', Entry<string[]>>({
    max: 1,
    ttl: ttlMs,
    fetchMethod: async () => ({ value: await listBrandCodes(client) }),
  });
  const brandCodes = async () => (await codes.fetch('all'))?.value ?? [];
  const regions = new LRUCache<'all', Entry<Region[]>>({
    max: 1,
    ttl: ttlMs,
    fetchMethod: async () => ({ value: await client.listRegions() }),
  });
  return {
    brand: (code) => brandIgnoringCase(code, async (c) => (await brands.fetch(c))?.value ?? null, brandCodes),
    brandCodes,
    async regions() {
      const entry = await regions.fetch('all');
      return entry?.value ?? [];
    },
  };
}
