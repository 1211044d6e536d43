import type { ServerResponse } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CacheHooks } from '../cache/read-cache.js';
import type { Redact } from '../redaction.js';
import type { CallEvent } from '../upstream/call-event.js';
import { cacheMetrics } from './cache-metrics.js';
import { liveMetrics } from './live-metrics.js';
import { loaderMetrics } from './loader-metrics.js';
import { shieldMetrics } from './shield-metrics.js';
import { upstreamMetrics } from './upstream-metrics.js';

// One Prometheus registry per gateway instance (never prom-client's global one: tests run several gateways
// in one process), holding the process defaults and every gateway series. The GraphQL operation series are
// registered by useOperationMetrics on the same registry. Served as text on GET /metrics.

export interface GatewayMetrics {
  registry: Registry;
  /** The upstream client's `onCall`. */
  upstreamCall(event: CallEvent): void;
  /** The loaders' `onBatch`. */
  loaderBatch(loader: string, size: number): void;
  /** The read cache's hooks. */
  cache: CacheHooks;
  /** Connects the live hub's counts and hooks; returns the disconnection. */
  watchLive: ReturnType<typeof liveMetrics>;
  /** Connects the upstream client's budget and circuit breaker. */
  watchShield: ReturnType<typeof shieldMetrics>;
  /** Answers a scrape, its text through `redact` (label values such as operation names are clients' text). */
  respond(res: ServerResponse, redact: Redact): Promise<void>;
}

/**
 * How often the event-loop delay histogram behind `nodejs_eventloop_lag_*` samples the loop. prom-client's 10 ms
 * default is a libuv timer waking the process 100 times a second even when it has nothing to do: that timer was
 * all of an idle gateway's CPU (20–40 ms per 5 s; 0–10 ms at 100 ms). Each sample is the delay a timer due at
 * that moment meets, so a coarser rate keeps what the percentiles describe and takes fewer samples: ~150 per
 * 15 s scrape instead of ~1,500. A stall shorter than the interval is seen only when a sample falls in it.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  // process_* and nodejs_* series under their usual names, so stock Node.js dashboards work unchanged.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return {
    registry,
    upstreamCall: upstreamMetrics(registry),
    loaderBatch: loaderMetrics(registry),
    cache: cacheMetrics(registry),
    watchLive: liveMetrics(registry),
    watchShield: shieldMetrics(registry),
    async respond(res, redact) {
      try {
        const body = redact(await registry.metrics());
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(body);
      } catch {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('metrics collection failed\n');
      }
    },
  };
}
