import type { CatalogCache } from './catalog/catalog-cache.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { UpstreamClient } from './upstream/types.js';

// Per-request state. Created fresh for every operation (and every subscription), so nothing one request
// loads can leak into another.

export interface GatewayContext {
  loaders: Loaders;
  client: UpstreamClient;
  catalog: CatalogCache;
}

export interface ContextDeps {
  client: UpstreamClient;
  catalog: CatalogCache;
}

export function createContext(deps: ContextDeps, signal?: AbortSignal): GatewayContext {
  return {
    client: deps.client,
    catalog: deps.catalog,
    loaders: createLoaders(deps.client, deps.catalog, signal),
  };
}
