import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Shield } from '../upstream/types.js';

// The upstream budget and the circuit breaker (upstream/shield.ts): the limits in force and the tokens left
// (read when scraped), the waits for tokens by priority, the reads refused UPSTREAM_BUSY, the cuts of the
// adaptive limit, how far pollers' intervals were stretched, and the breaker's state and transitions.
// reward_gateway_upstream_circuit_state is what alert rules read: 1 on the current state's series.

const STATES = ['closed', 'open', 'half_open'] as const;
const WAIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Creates the series; the returned function connects the client's shield to them. */
export function shieldMetrics(registry: Registry): (shield: Shield) => void {
  let source: Shield | null = null;
  const state = () => source?.state();
  new Gauge({
    name: 'reward_gateway_upstream_circuit_state',
    help: 'The upstream circuit breaker: 1 on the current state (closed, open, half_open), 0 on the others',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const now = state()?.circuit ?? 'closed';
      for (const s of STATES) this.set({ state: s }, s === now ? 1 : 0);
    },
  });
  const transitions = new Counter({
    name: 'reward_gateway_upstream_circuit_transitions_total',
    help: 'Changes of the upstream circuit breaker, by the state entered',
    labelNames: ['to'],
    registers: [registry],
  });
  new Gauge({
    name: 'reward_gateway_upstream_adaptive_limit',
    help: 'Requests a second the reward API was found to accept (the adaptive limit); absent until it first said "too many"',
    registers: [registry],
    collect() {
      this.reset();
      const limit = state()?.adaptiveLimit;
      if (limit != null) this.set(limit);
    },
  });
  const cuts = new Counter({
    name: 'reward_gateway_upstream_adaptive_cuts_total',
    help: 'Times the adaptive limit was cut after a 429 or Retry-After from the reward API',
    registers: [registry],
  });
  new Gauge({
    name: 'reward_gateway_upstream_budget_limit',
    help: 'The fixed upstream budget in force (UPSTREAM_RATE_LIMIT_PER_SECOND and _BURST), for the cluster in cluster mode; absent when unset',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      this.reset();
      const ceiling = state()?.ceiling;
      if (!ceiling) return;
      this.set({ limit: 'per_second' }, ceiling.perSecond);
      this.set({ limit: 'burst' }, ceiling.burst);
    },
  });
  new Gauge({
    name: 'reward_gateway_upstream_budget_tokens',
    help: "Tokens left in this process's upstream budget (absent in cluster mode, where Redis holds them, and without a budget)",
    registers: [registry],
    collect() {
      this.reset();
      const tokens = state()?.ceilingTokens;
      if (tokens != null) this.set(tokens);
    },
  });
  new Gauge({
    name: 'reward_gateway_upstream_budget_waiting',
    help: 'Upstream attempts waiting for a token of the budget now, by priority (write, poll, read)',
    labelNames: ['priority'],
    registers: [registry],
    collect() {
      const waiting = state()?.waiting ?? { write: 0, poll: 0, read: 0 };
      for (const [priority, n] of Object.entries(waiting)) this.set({ priority }, n);
    },
  });
  const wait = new Histogram({
    name: 'reward_gateway_upstream_budget_wait_seconds',
    help: 'Time an upstream attempt waited for a token of the budget, by priority (only while a budget or adaptive limit is in force)',
    labelNames: ['priority'],
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const busy = new Counter({
    name: 'reward_gateway_upstream_busy_total',
    help: 'Upstream attempts refused for want of a token, nothing sent, by priority (reads answer UPSTREAM_BUSY)',
    labelNames: ['priority'],
    registers: [registry],
  });
  const stretch = new Counter({
    name: 'reward_gateway_poll_interval_stretch_seconds_total',
    help: 'Seconds live polls started later than their interval because the upstream budget served writes first',
    registers: [registry],
  });

  return (shield) => {
    source = shield;
    shield.listen((event) => {
      switch (event.type) {
        case 'token':
          wait.observe({ priority: event.priority }, event.waitedMs / 1000);
          if (event.priority === 'poll' && event.waitedMs > 0) stretch.inc(event.waitedMs / 1000);
          return;
        case 'busy':
          busy.inc({ priority: event.priority });
          return;
        case 'cut':
          cuts.inc();
          return;
        case 'circuit':
          transitions.inc({ to: event.to });
          return;
      }
    });
  };
}
