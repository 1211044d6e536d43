import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallEvent } from '../upstream/call-event.js';

// Upstream calls as the client reports them (its `onCall` CallEvent): one event per client method call, after
// every retry and any recovery lookup. Lookups a recovery makes are part of the call that needed them.

export const DEFAULT_UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

export function upstreamMetrics(registry: Registry): (event: CallEvent) => void {
  const requests = new Counter({
    name: 'reward_gateway_upstream_requests_total',
    help: 'Upstream calls by route, HTTP status of the last attempt (0: no answer), attempts made and outcome',
    labelNames: ['route', 'status', 'attempts', 'outcome'],
    registers: [registry],
  });
  const retries = new Counter({
    name: 'reward_gateway_upstream_retries_total',
    help: 'Upstream attempts beyond the first, by route',
    labelNames: ['route'],
    registers: [registry],
  });
  const recoveries = new Counter({
    name: 'reward_gateway_upstream_recoveries_total',
    help: 'Creates whose answer was lost and which were found by looking the order up, by route',
    labelNames: ['route'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'reward_gateway_upstream_request_duration_seconds',
    help: 'Upstream call time, retries and backoff included, by route and outcome',
    labelNames: ['route', 'outcome'],
    buckets: DEFAULT_UPSTREAM_BUCKETS,
    registers: [registry],
  });

  return (event) => {
    requests.inc({ route: event.route, status: String(event.status), attempts: String(event.attempts), outcome: event.outcome });
    // Zero increments still create the series, so every route seen shows its retry count, 0 included.
    retries.inc({ route: event.route }, event.attempts - 1);
    if (event.recovered) recoveries.inc({ route: event.route });
    duration.observe({ route: event.route, outcome: event.outcome }, event.durationMs / 1000);
  };
}
