import { randomUUID } from 'node:crypto';
import type { CatalogCache } from './catalog/catalog-cache.js';
import type { Live } from './live/live.js';
import { createLoaders, type LoaderHooks, type Loaders } from './loaders.js';
import type { Logger } from './ops/logger.js';
import type { Caller } from './security/scopes.js';
import type { UpstreamClient } from './upstream/types.js';

// Per-request state. Created fresh for every operation (and every subscription), so nothing one request
// loads can leak into another.

export interface GatewayContext {
  loaders: Loaders;
  client: UpstreamClient;
  /** The gateway's one live hub: subscriptions watch the upstream through it, never per request. */
  live: Live;
  /** Who is calling (the name of their API key, never the key) and what they may do; scope-auth reads it. */
  caller: Caller;
  /** This operation's id: echoed in the `x-request-id` response header and on every log line of it. */
  requestId: string;
  /** The gateway logger bound to `requestId`. */
  log: Logger;
}

export interface ContextDeps {
  client: UpstreamClient;
  catalog: CatalogCache;
  live: Live;
  logger: Logger;
  onLoaderBatch?: LoaderHooks['onBatch'];
  /** The identity an Authorization value carries (src/security). */
  callerFor(authorization: string | null | undefined): Caller;
}

/** What the transport knows about the request (HTTP, SSE or one WebSocket subscription). */
export interface RequestInfo {
  signal?: AbortSignal;
  /**
   * The caller's `Authorization` value as sent: the HTTP header, or for a WebSocket the `authorization` of its
   * connection_init payload (else the upgrade request's header).
   */
  authorization?: string | null;
  /** Default: a fresh UUID (a context made outside any request still gets one). */
  requestId?: string;
}

export function createContext(deps: ContextDeps, request: RequestInfo = {}): GatewayContext {
  const requestId = request.requestId ?? randomUUID();
  return {
    client: deps.client,
    live: deps.live,
    caller: deps.callerFor(request.authorization),
    requestId,
    log: deps.logger.child({ requestId }),
    loaders: createLoaders(deps.client, deps.catalog, request.signal, { onBatch: deps.onLoaderBatch }),
  };
}
