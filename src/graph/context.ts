import { randomUUID } from 'node:crypto';
import { cachedClient, type Freshness, type Reads } from '../cache/cached-client.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { CatalogCache } from '../catalog/catalog-cache.js';
import type { Hint } from '../errors/gateway-error.js';
import type { Live } from '../live/live.js';
import { createLoaders, type LoaderHooks, type Loaders } from './loaders.js';
import type { Logger } from '../ops/logger.js';
import type { Caller } from '../security/scopes.js';
import type { UpstreamClient } from '../upstream/types.js';
import type { Webhooks } from '../webhooks/webhooks.js';

/** The catalogue as a live query's round reads it: noting that it did, for the refresh of what nothing watches. */
function noting(catalog: CatalogCache, reads: Reads): CatalogCache {
  const read = <T>(answer: T): T => ((reads.catalogue = true), answer);
  return {
    brand: (code, client) => read(catalog.brand(code, client)),
    brandCodes: (client) => read(catalog.brandCodes(client)),
    regions: (client) => read(catalog.regions(client)),
  };
}

// Per-request state. Created fresh for every operation (and every subscription), so nothing one request
// loads can leak into another.

export interface GatewayContext {
  loaders: Loaders;
  /** The upstream client in this operation's scope (its caller's lane, its request id and logger). */
  client: UpstreamClient;
  /** The same client without the read cache's view of it: what `writes` and `liveRound` make their own from. */
  scoped: UpstreamClient;
  /** The request's abort signal (the client went away); none for a context made outside a request. */
  signal: AbortSignal | undefined;
  /** The gateway's one live hub: subscriptions watch the upstream through it, never per request. */
  live: Live;
  /** The gateway's webhook endpoints and their deliveries (webhooks/). */
  webhooks: Webhooks;
  /** Who is calling (the name of their API key, never the key) and what they may do; scope-auth reads it. */
  caller: Caller;
  /** This operation's id: echoed in the `x-request-id` response header and on every log line of it. */
  requestId: string;
  /** The gateway logger bound to `requestId`. */
  log: Logger;
  /** What this operation asks of the read cache (fresh reads) and learns from it (a stale answer); cache/use-cache-freshness.ts. */
  freshness: Freshness;
  /** Notes for the caller beside the data (a near-miss brand code), sent as `extensions.hints`; use-response-hints.ts. */
  hints: Hint[];
  /**
   * The loaders of one live event, shared by every subscriber it is delivered to: a subscription's resolver
   * swaps them in for each event, so an event's nested fields cost one upstream read, not one per subscriber.
   * It swaps in the event's `freshness` too: whether the event's reads got a stale answer is the event's own.
   */
  eventLoaders(this: GatewayContext, event: object): Loaders;
  /**
   * The operation is a mutation (use-write-priority.ts): from now on `client` and `loaders` make every
   * upstream call of it, its reads included, at a write's priority in the upstream budget.
   */
  writes(this: GatewayContext): void;
  /**
   * What one resolution of a live query runs with in place of the operation's own: fresh loaders (a change must
   * not be answered from the last round's), no request signal (one viewer leaving must not abort what the others
   * share), and a record of what it read (live/live-queries.ts); `fresh`
   * reads past the read cache.
   */
  liveRound(this: GatewayContext, fresh: boolean): Pick<GatewayContext, 'client' | 'loaders' | 'freshness' | 'hints'> & { reads: Reads };
}

export interface ContextDeps {
  /**
   * The upstream client in the scope shared by every operation (the gateway's stop signal); each operation's
   * calls add its caller's lane, request id and logger to it.
   */
  client: UpstreamClient;
  catalog: CatalogCache;
  /** The read cache (src/cache/); null when CACHE_TTL_MS is 0. */
  cache: ReadCache | null;
  live: Live;
  webhooks: Webhooks;
  logger: Logger;
  onLoaderBatch?: LoaderHooks['onBatch'];
}

/** What the transport knows about the request (HTTP, SSE or one WebSocket subscription). */
export interface RequestInfo {
  signal?: AbortSignal;
  /** Who is calling, as the access pipeline's authentication found (src/security/use-api-keys.ts). */
  caller: Caller;
  /** Default: a fresh UUID (a context made outside any request still gets one). */
  requestId?: string;
  /** Default: cached reads (a WebSocket operation has no Cache-Control of its own). */
  freshness?: Freshness;
}

/**
 * Contexts for one gateway. What they share is made once here, not per request: a subscription keeps its
 * context for its whole life, so whatever a context holds of its own, every idle subscriber holds.
 */
export function contextFactory(deps: ContextDeps): (request: RequestInfo) => GatewayContext {
  const hooks: LoaderHooks = { onBatch: deps.onLoaderBatch };
  // Keyed by the event object the live hub decodes once and hands to every subscriber; collected with it. No
  // request signal: one subscriber leaving must not abort a read the others share (the shared scope's stop
  // signal and deadline still apply); no subscriber's lane or request id either, for the same reason.
  const byEvent = new WeakMap<object, { loaders: Loaders; freshness: Freshness }>();
  const { cache } = deps;
  const viewWith = (upstream: UpstreamClient, seen: Freshness) => (cache ? cachedClient(upstream, cache, seen) : upstream);
  const forEvent = (event: object) => {
    let found = byEvent.get(event);
    if (!found) {
      const freshness: Freshness = { fresh: false, stale: false };
      byEvent.set(event, (found = { loaders: createLoaders(viewWith(deps.client, freshness), deps.catalog, undefined, hooks), freshness }));
    }
    return found;
  };
  // The context's methods, shared by every context: each reads the one it is called on (the context execution
  // runs with, which yoga makes by spreading this one into its own), so a context holds no closure of its own.
  function eventLoaders(this: GatewayContext, event: object): Loaders {
    const found = forEvent(event);
    this.freshness = found.freshness;
    return found.loaders;
  }
  function writes(this: GatewayContext): void {
    this.client = viewWith(this.scoped.inScope({ priority: 'write' }), this.freshness);
    this.loaders = createLoaders(this.client, deps.catalog, this.signal, hooks);
  }
  function liveRound(this: GatewayContext, fresh: boolean): ReturnType<GatewayContext['liveRound']> {
    const reads: Reads = { groups: new Set(), orders: new Set(), catalogue: false };
    const seen: Freshness = { fresh, stale: false, reads };
    const client = viewWith(this.scoped, seen);
    return { client, freshness: seen, hints: [], reads, loaders: createLoaders(client, noting(deps.catalog, reads), undefined, hooks) };
  }
  return (request) => {
    const requestId = request.requestId ?? randomUUID();
    const { caller } = request;
    const log = deps.logger.child({ requestId });
    const freshness = request.freshness ?? { fresh: false, stale: false };
    // The lane of the caller's key: the bulkhead shares upstream concurrency fairly between keys.
    const scoped = deps.client.inScope({ lane: `key:${caller.name}`, requestId, log });
    const client = viewWith(scoped, freshness);
    return {
      client,
      freshness,
      hints: [],
      live: deps.live,
      webhooks: deps.webhooks,
      caller,
      requestId,
      log,
      loaders: createLoaders(client, deps.catalog, request.signal, hooks),
      scoped,
      signal: request.signal,
      eventLoaders,
      writes,
      liveRound,
    };
  };
}
