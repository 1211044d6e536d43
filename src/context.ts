import type { CatalogCache } from './catalog/catalog-cache.js';
import type { Live } from './live/live.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { UpstreamClient } from './upstream/types.js';

// Per-request state. Created fresh for every operation (and every subscription), so nothing one request
// loads can leak into another.

export interface GatewayContext {
  loaders: Loaders;
  client: UpstreamClient;
  catalog: CatalogCache;
  /** The gateway's one live hub: subscriptions watch the upstream through it, never per request. */
  live: Live;
  /**
   * The caller's `Authorization` value as sent: the HTTP header, or for a WebSocket the `authorization` of its
   * connection_init payload (else the upgrade request's header). Not checked here; API-key auth reads it.
   */
  authorization: string | null;
}

export interface ContextDeps {
  client: UpstreamClient;
  catalog: CatalogCache;
  live: Live;
}

/** What the transport knows about the request (HTTP, SSE or one WebSocket subscription). */
export interface RequestInfo {
  signal?: AbortSignal;
  authorization?: string | null;
}

export function createContext(deps: ContextDeps, request: RequestInfo = {}): GatewayContext {
  return {
    client: deps.client,
    catalog: deps.catalog,
    live: deps.live,
    authorization: request.authorization ?? null,
    loaders: createLoaders(deps.client, deps.catalog, request.signal),
  };
}
