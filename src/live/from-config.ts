import { dropFound, observingClient } from '../cache/cached-client.js';
import type { ReadCache } from '../cache/read-cache.js';
import type { CacheSettings } from '../cache/config.js';
import type { CatalogSettings } from '../catalog/config.js';
import type { LiveSettings } from './config.js';
import type { UpstreamClient } from '../upstream/types.js';
import type { LiveLogger } from './listener.js';
import { createLive, type Live } from './live.js';
import { LiveQueries } from './live-queries.js';
import { createSubscriptionCap, LIVE_QUERIES } from './subscription-cap.js';
import type { LiveStore } from './store.js';

// The live hub as the configuration asks for it (src/app.ts composes it). Its pollers read past the read cache
// and drop what they see change.

export interface LiveWiring {
  client: UpstreamClient;
  cache: ReadCache | null;
  store: LiveStore;
  logger: LiveLogger;
}

export function liveFromConfig(
  config: Pick<
    LiveSettings,
    'POLL_INTERVAL_MS' | 'LIVE_RETENTION_MS' | 'LIVE_MAX_POLLERS' | 'LIVE_MAX_WATCHED_PER_KEY' | 'LIVE_MAX_SUBSCRIPTIONS_PER_KEY'
  >,
  { client, cache, store, logger }: LiveWiring,
): Live {
  return createLive({
    client: cache ? observingClient(client, cache) : client,
    store,
    intervalMs: config.POLL_INTERVAL_MS,
    retentionMs: config.LIVE_RETENTION_MS,
    maxPollers: config.LIVE_MAX_POLLERS,
    maxWatchedPerKey: config.LIVE_MAX_WATCHED_PER_KEY,
    maxSubscriptionsPerKey: config.LIVE_MAX_SUBSCRIPTIONS_PER_KEY,
    logger,
    ...(cache && { dropFound: (found) => dropFound(client, cache, found) }),
  });
}

/**
 * `@live` queries over the live hub: what the read cache drops (writes and pollers, here and on every replica)
 * re-resolves the live queries that read it; their orders are watched by the hub's pollers. Without the read
 * cache nothing is dropped, and live queries are read again every POLL_INTERVAL_MS.
 */
export function liveQueriesFromConfig(
  config: Pick<LiveSettings, 'POLL_INTERVAL_MS' | 'LIVE_QUERY_MAX_WATCHED_ORDERS' | 'LIVE_QUERY_MAX_PER_KEY'> &
    Pick<CacheSettings, 'CACHE_TTL_MS'> &
    Pick<CatalogSettings, 'CATALOG_CACHE_TTL_MS'>,
  { live, cache, store }: { live: Live; cache: ReadCache | null; store: LiveStore },
): LiveQueries {
  const refreshMs = cache ? config.CACHE_TTL_MS : config.POLL_INTERVAL_MS;
  const liveQueries = new LiveQueries({
    watchOrder: (uuid, onWatched, onRefused) => live.watchOrder(uuid, onWatched, onRefused),
    maxWatchedOrders: cache ? config.LIVE_QUERY_MAX_WATCHED_ORDERS : 0,
    refreshMs,
    // 0 turns the catalogue's cache off (every read asks the upstream): refreshed with the rest then, never in a loop.
    catalogueRefreshMs: config.CATALOG_CACHE_TTL_MS > 0 ? config.CATALOG_CACHE_TTL_MS : refreshMs,
    cap: createSubscriptionCap({ store, max: config.LIVE_QUERY_MAX_PER_KEY, renewEveryMs: config.POLL_INTERVAL_MS, kind: LIVE_QUERIES }),
  });
  // Never removed: the read cache lives exactly as long as the gateway, as the live queries do.
  cache?.onDropped((groups, cause) => liveQueries.invalidate(groups, cause));
  return liveQueries;
}
