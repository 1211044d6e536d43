import { configArea, count, documented, positiveMs, type AreaSettings } from '../shared/config-area.js';

// The live area's environment variables (subscriptions polled from the upstream), composed by src/config.ts.

export const liveArea = configArea({
  title: 'Subscriptions',
  variables: {
    POLL_INTERVAL_MS: documented(positiveMs.default(5_000), {
      description: 'how often each subscription poller asks the upstream, which has no webhooks',
    }),
    POLL_INTERVAL_FLOOR_MS: documented(positiveMs.default(1_000), {
      description: 'lowest `POLL_INTERVAL_MS` accepted, protecting the upstream from a typo (tests lower it to run fast)',
    }),
    LIVE_LEASE_MS: documented(positiveMs.optional(), {
      description: "how long a watched key's poller lease lasts without renewal; longer than `POLL_INTERVAL_MS`",
      unsetMeans: '3 × `POLL_INTERVAL_MS`',
    }),
    LIVE_RETENTION_MS: documented(positiveMs.default(3_600_000), {
      description: "how long events stay in a key's log (how far back `after` resumes), and snapshots after the last poll",
    }),
    LIVE_MAX_WATCHED_PER_KEY: documented(count.default(200), {
      description: 'orders one API key may watch at once (across the cluster in cluster mode)',
    }),
    LIVE_MAX_POLLERS: documented(count.default(2_000), { description: 'keys (orders, the account, funds) one replica watches at most' }),
    LIVE_QUERY_MAX_WATCHED_ORDERS: documented(count.default(50), {
      description:
        'orders one live query (`@live`) has watched by pollers; past them its result is read again every `CACHE_TTL_MS` and `extensions.live` says so',
    }),
    LIVE_QUERY_MAX_PER_KEY: documented(count.default(500), {
      description:
        'live queries (`@live`) one API key may have open, WebSocket and SSE, across the cluster (`LIVE_QUERIES_PER_KEY_EXCEEDED`); counted apart from subscriptions',
    }),
    LIVE_MAX_SUBSCRIPTIONS_PER_KEY: documented(count.default(2_000), {
      description:
        'subscriptions one API key may have open, every live root field, WebSocket and SSE, across the cluster (`SUBSCRIPTIONS_PER_KEY_EXCEEDED`)',
    }),
  },
  rules({ values }) {
    const problems: string[] = [];
    const { POLL_INTERVAL_MS: interval, POLL_INTERVAL_FLOOR_MS: floor, LIVE_LEASE_MS: lease } = values;
    if (interval !== undefined && floor !== undefined && interval < floor) {
      problems.push(`POLL_INTERVAL_MS must be at least POLL_INTERVAL_FLOOR_MS (${floor})`);
    }
    if (lease !== undefined && interval !== undefined && lease <= interval) {
      problems.push(`LIVE_LEASE_MS must be longer than POLL_INTERVAL_MS (${interval}), or leases lapse between renewals`);
    }
    return problems;
  },
});

/** LIVE_LEASE_MS filled in when unset: three poll intervals, so one late poll does not lose the lease. */
export function withLeaseDefault<T extends { POLL_INTERVAL_MS: number; LIVE_LEASE_MS?: number | undefined }>(
  values: T,
): T & { LIVE_LEASE_MS: number } {
  return { ...values, LIVE_LEASE_MS: values.LIVE_LEASE_MS ?? 3 * values.POLL_INTERVAL_MS };
}

/** The live area's settings as loadConfig gives them: LIVE_LEASE_MS always filled in. */
export type LiveSettings = ReturnType<typeof withLeaseDefault<AreaSettings<typeof liveArea>>>;
