import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LiveQueries } from '../live/live-queries.js';

// Live queries (`@live`, live/live-queries.ts): how many are open and how many distinct (one resolution each per
// change), the orders they have watched, why they are resolved and whether that sent anything, and what is sent
// (whole results or JSON patches, and their bytes). No label names a query or an order.

type LiveQuerySource = Pick<LiveQueries, 'listen' | 'stats'>;

/** Creates the series; the returned function connects the live queries to them and returns the disconnection. */
export function liveQueryMetrics(registry: Registry): (liveQueries: LiveQuerySource) => () => void {
  let source: LiveQuerySource | null = null;
  const gauge = (name: string, help: string, read: (stats: ReturnType<LiveQuerySource['stats']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(source ? read(source.stats()) : 0);
      },
    });
  gauge('reward_gateway_live_queries', 'Live queries (@live) open on this replica', (s) => s.viewers);
  gauge(
    'reward_gateway_live_queries_distinct',
    'Distinct live queries on this replica: each is resolved once per change for all its viewers',
    (s) => s.shared,
  );
  gauge('reward_gateway_live_query_watched_orders', 'Orders the live queries of this replica have watched by pollers', (s) => s.watchedOrders);
  const rounds = new Counter({
    name: 'reward_gateway_live_query_resolutions_total',
    help: 'Resolutions of distinct live queries, by cause (first, write, poller, remote, refresh, watched) and whether the result changed',
    labelNames: ['cause', 'changed'],
    registers: [registry],
  });
  // Unlabelled, so the series exist from the start (the alert reads them); causes are in the counter above.
  const durations = new Histogram({
    name: 'reward_gateway_live_query_resolution_seconds',
    help: 'How long resolving a live query again takes, from the change to its viewers being sent the result (or learning nothing changed)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const sent = new Counter({
    name: 'reward_gateway_live_query_payloads_total',
    help: 'Payloads sent to live query viewers: whole results or JSON patches',
    labelNames: ['kind'],
    registers: [registry],
  });
  const bytes = new Counter({
    name: 'reward_gateway_live_query_payload_bytes_total',
    help: 'Bytes of the payloads sent to live query viewers (their JSON), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  return (liveQueries) => {
    source = liveQueries;
    const stop = liveQueries.listen({
      onRound: (cause, changed, seconds) => {
        rounds.inc({ cause, changed: String(changed) });
        durations.observe(seconds);
      },
      onSend: (kind, size) => {
        sent.inc({ kind });
        bytes.inc({ kind }, size);
      },
    });
    return () => {
      stop();
      if (source === liveQueries) source = null;
    };
  };
}
