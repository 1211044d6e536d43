import { Gauge, type Registry } from 'prom-client';

// What /ready reports and never refuses on, as series (src/edge/readiness.ts): whether this replica's last ping
// reached the reward API and each OpenID issuer's signing keys. The breaker's state is
// reward_gateway_upstream_circuit_state (shield-metrics.ts), Redis's reward_gateway_redis_up (live-metrics.ts).

const KEY_STATES = ['none', 'fresh', 'stale'] as const;

export interface ReadinessSource {
  /** The outcome of the last ping /ready made (a scrape starts none). */
  upstream(): { state: 'unknown' | 'up' | 'down' };
  issuers?(): { issuer: string; keys: (typeof KEY_STATES)[number] }[];
}

/** Creates the series; the returned function connects what /ready observes to them. */
export function readinessMetrics(registry: Registry): (source: ReadinessSource) => void {
  let source: ReadinessSource | null = null;
  new Gauge({
    name: 'reward_gateway_upstream_reachable',
    help: '1 when the last ping behind /ready (GET /ping, at most one per READY_CACHE_MS) reached the reward API, 0 when it failed; absent before the first answer',
    registers: [registry],
    collect() {
      this.reset();
      const state = source?.upstream().state;
      if (state === 'up' || state === 'down') this.set(state === 'up' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'reward_gateway_issuer_keys',
    help: "An OpenID issuer's signing keys: 1 on the current state (none fetched yet, fresh, stale), 0 on the others",
    labelNames: ['issuer', 'keys'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { issuer, keys } of source?.issuers?.() ?? []) for (const s of KEY_STATES) this.set({ issuer, keys: s }, s === keys ? 1 : 0);
    },
  });
  return (connected) => {
    source = connected;
  };
}
