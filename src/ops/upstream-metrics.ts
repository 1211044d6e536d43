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

  // Each route's labelled series, made once: the route set is fixed, and status and attempts take a few values,
  // as many as the series prom-client keeps anyway. prom-client's child still hashes its labels per
  // observation; what the cache saves is a label object and two number-to-string conversions per call.
  interface RouteSeries {
    retries: Counter.Internal;
    recoveries: Counter.Internal | null;
    duration: Map<string, Histogram.Internal<'route' | 'outcome'>>;
    requests: Map<string, Map<number, Map<number, Counter.Internal>>>;
  }
  const series = new Map<string, RouteSeries>();
  const seriesOf = (route: string): RouteSeries => {
    let found = series.get(route);
    if (!found) {
      found = { retries: retries.labels({ route }), recoveries: null, duration: new Map(), requests: new Map() };
      series.set(route, found);
    }
    return found;
  };
  const child = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
    let found = map.get(key);
    if (found === undefined) {
      found = make();
      map.set(key, found);
    }
    return found;
  };

  return (event) => {
    const { route, status, attempts, outcome } = event;
    const s = seriesOf(route);
    const byStatus = child(s.requests, outcome, () => new Map<number, Map<number, Counter.Internal>>());
    const byAttempts = child(byStatus, status, () => new Map<number, Counter.Internal>());
    child(byAttempts, attempts, () => requests.labels({ route, status: String(status), attempts: String(attempts), outcome })).inc();
    // Zero increments still create the series, so every route seen shows its retry count, 0 included.
    s.retries.inc(attempts - 1);
    if (event.recovered) (s.recoveries ??= recoveries.labels({ route })).inc();
    child(s.duration, outcome, () => duration.labels({ route, outcome })).observe(event.durationMs / 1000);
  };
}
