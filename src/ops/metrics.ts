import type { ServerResponse } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { CacheHooks } from '../cache/read-cache.js';
import type { Redact } from '../redaction/redaction.js';
import type { CallEvent } from '../upstream/call-event.js';
import { cacheMetrics } from './cache-metrics.js';
import { eventLoopLagMetrics, EVENT_LOOP_LAG_SERIES } from './event-loop-lag.js';
import { liveMetrics } from './live-metrics.js';
import { liveQueryMetrics } from './live-query-metrics.js';
import { loaderMetrics } from './loader-metrics.js';
import { mcpMetrics, type McpToolOutcome } from './mcp-metrics.js';
import { readinessMetrics } from './readiness-metrics.js';
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
  /** Counts an MCP tool call (mcp/endpoint.ts); `tool` is a tool's name, or `unknown`. */
  mcpToolCall(tool: string, outcome: McpToolOutcome): void;
  /** Connects the live hub's counts and hooks; returns the disconnection. */
  watchLive: ReturnType<typeof liveMetrics>;
  /** Connects the live queries' counts and hooks; returns the disconnection. */
  watchLiveQueries: ReturnType<typeof liveQueryMetrics>;
  /** Connects the upstream client's budget and circuit breaker. */
  watchShield: ReturnType<typeof shieldMetrics>;
  /** Connects what /ready reports (the upstream's reachability, the issuers' keys). */
  watchReadiness: ReturnType<typeof readinessMetrics>;
  /** Answers a scrape, its text through `redact` (label values such as operation names are clients' text). */
  respond(res: ServerResponse, redact: Redact): Promise<void>;
  /** Stops what samples in the background (the event-loop delay); the series stay readable. */
  close(): void;
}

/**
 * prom-client's delay histogram cannot be left out of its defaults nor stopped, and its timer wakes the process
 * however idle: given the longest interval a timer takes (~24.8 days) it never fires, and its series make way for
 * event-loop-lag.ts's, which sample only while there is work.
 */
const NEVER_MS = 2 ** 31 - 1;

export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  // process_* and nodejs_* series under their usual names, so stock Node.js dashboards work unchanged.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: NEVER_MS });
  for (const name of EVENT_LOOP_LAG_SERIES) registry.removeSingleMetric(name);
  const stopLagSampling = eventLoopLagMetrics(registry);
  return {
    registry,
    close: stopLagSampling,
    upstreamCall: upstreamMetrics(registry),
    loaderBatch: loaderMetrics(registry),
    cache: cacheMetrics(registry),
    mcpToolCall: mcpMetrics(registry),
    watchLive: liveMetrics(registry),
    watchLiveQueries: liveQueryMetrics(registry),
    watchShield: shieldMetrics(registry),
    watchReadiness: readinessMetrics(registry),
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
