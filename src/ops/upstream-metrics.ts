import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallEvent } from '../upstream/call-event.js';

// Upstream calls as the client reports them (its `onCall` CallEvent): one event per client method call, after
// every retry and any recovery lookup. Lookups a recovery makes are part of the call that needed them.

export const DEFAULT_UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

export function upstreamMetrics(registry: Registry): (event: CallEvent) => void {
  // The two counters every call moves are counted here and handed to prom-client when they are read (collect(),
  // which prom-client calls before every read of a metric: each /metrics scrape). prom-client hashes and checks
  // the labels of each increment, even through a labelled child: per call that was about half of what recording
  // it cost. Each series is created at its first call, as before, and read in the same order; a series whose
  // increments were all 0 (retries of a route that never retried) is still created with 0.
  const flushed = (tallies: Tally[]) =>
    function (this: Counter) {
      for (const tally of tallies) {
        this.inc(tally.labels, tally.pending);
        tally.pending = 0;
      }
    };
  const requestTallies: Tally[] = [];
  const retryTallies: Tally[] = [];
  new Counter({
    name: 'reward_gateway_upstream_requests_total',
    help: 'Upstream calls by route, HTTP status of the last attempt (0: no answer), attempts made and outcome',
    labelNames: ['route', 'status', 'attempts', 'outcome'],
    registers: [registry],
    collect: flushed(requestTallies),
  });
  new Counter({
    name: 'reward_gateway_upstream_retries_total',
    help: 'Upstream attempts beyond the first, by route',
    labelNames: ['route'],
    registers: [registry],
    collect: flushed(retryTallies),
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
  // as many as the series prom-client keeps anyway. prom-client's histogram child still hashes its labels per
  // observation; what the cache saves there is a label object and two number-to-string conversions per call.
  interface RouteSeries {
    retries: Tally;
    recoveries: Counter.Internal | null;
    duration: Map<string, Histogram.Internal<'route' | 'outcome'>>;
    requests: Map<string, Map<number, Map<number, Tally>>>;
  }
  const tally = (tallies: Tally[], labels: Tally['labels']): Tally => {
    const made = { labels, pending: 0 };
    tallies.push(made);
    return made;
  };
  const series = new Map<string, RouteSeries>();
  const seriesOf = (route: string): RouteSeries => {
    let found = series.get(route);
    if (!found) {
      found = { retries: tally(retryTallies, { route }), recoveries: null, duration: new Map(), requests: new Map() };
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
    const byStatus = child(s.requests, outcome, () => new Map<number, Map<number, Tally>>());
    const byAttempts = child(byStatus, status, () => new Map<number, Tally>());
    child(byAttempts, attempts, () => tally(requestTallies, { route, status: String(status), attempts: String(attempts), outcome })).pending++;
    s.retries.pending += attempts - 1;
    if (event.recovered) (s.recoveries ??= recoveries.labels({ route })).inc();
    child(s.duration, outcome, () => duration.labels({ route, outcome })).observe(event.durationMs / 1000);
  };
}

/** A series of a counter: its labels, and what it was incremented by since prom-client last read it. */
interface Tally {
  labels: Record<string, string>;
  pending: number;
}
