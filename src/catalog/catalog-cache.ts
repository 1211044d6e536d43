import { LRUCache } from 'lru-cache';
import type { Brand, Region, UpstreamClient } from '../upstream/types.js';
import { listBrandCodes, matchBrandCode } from './brand-codes.js';

// Brand details and regions change rarely and every nested read asks for them, so they live in one
// process-wide cache shared by all requests. lru-cache's fetch() also collapses concurrent misses for the
// same key into one upstream call, which a per-request DataLoader cannot do across requests.

export interface CatalogCache {
  /**
   * By code, ignoring case (the result carries the catalog's spelling); null when no brand has it. `client` is
   * the asker's (its scope: API key lane, request id); a miss is fetched through the first asker's.
   */
  brand(code: string, client: UpstreamClient): Promise<Brand | null>;
  /** Every brand code, for suggestions when a code is unknown. */
  brandCodes(client: UpstreamClient): Promise<string[]>;
  regions(client: UpstreamClient): Promise<Region[]>;
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

export function createCatalogCache(ttlMs: number): CatalogCache {
  if (ttlMs === 0) {
    return {
      brand: (code, client) =>
        brandIgnoringCase(
          code,
          (c) => client.getBrand(c),
          () => listBrandCodes(client),
        ),
      brandCodes: (client) => listBrandCodes(client),
      regions: (client) => client.listRegions(),
    };
  }
  // The fetch context is the client of the asker whose miss starts the fetch.
  const brands = new LRUCache<string, Entry<Brand | null>, UpstreamClient>({
    max: MAX_BRANDS,
    ttl: ttlMs,
    fetchMethod: async (code, _stale, { context }) => ({ value: await context.getBrand(code) }),
  });
  const codes = new LRUCache<'all', Entry<string[]>, UpstreamClient>({
    max: 1,
    ttl: ttlMs,
    fetchMethod: async (_all, _stale, { context }) => ({ value: await listBrandCodes(context) }),
  });
  const brandCodes = async (client: UpstreamClient) => (await codes.fetch('all', { context: client }))?.value ?? [];
  const regions = new LRUCache<'all', Entry<Region[]>, UpstreamClient>({
    max: 1,
    ttl: ttlMs,
    fetchMethod: async (_all, _stale, { context }) => ({ value: await context.listRegions() }),
  });
  return {
    brand: (code, client) =>
      brandIgnoringCase(
        code,
        async (c) => (await brands.fetch(c, { context: client }))?.value ?? null,
        () => brandCodes(client),
      ),
    brandCodes,
    async regions(client) {
      const entry = await regions.fetch('all', { context: client });
      return entry?.value ?? [];
    },
  };
}
