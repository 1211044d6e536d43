// What stands between the gateway's calls and the reward API besides the bulkhead: the upstream budget (fixed
// ceiling, adaptive limit, priorities) and the circuit breaker. call.ts asks it before every attempt and tells
// it every answer; metrics read its state and hear its events; in cluster mode the composition hands it the
// ceiling counted in Redis.

import { AdaptiveLimit } from './adaptive-limit.js';
import { UpstreamBreaker } from './breaker.js';
import { memoryCeiling, UpstreamBudget, type Grant } from './budget.js';
import type { ClientConfig } from './config.js';
import type { Stops } from './stops.js';
import type { WireResponse } from './transport.js';
import type { Priority, Shield, ShieldEvent } from './types.js';

export interface ShieldCore extends Shield {
  readonly breaker: UpstreamBreaker;
  /** A token for an attempt of `lane`; a promise only when the attempt has to wait (or ask Redis). */
  take(priority: Priority, lane: string, maxWaitMs: number, stops: Stops): Grant | Promise<Grant>;
  /** Gives back the token of an attempt that was not sent after all. */
  refund(): void;
  /** The answer to an attempt sent at `sentAt` (performance.now()). */
  answered(sentAt: number, res: WireResponse): void;
  close(): void;
}

export function createShield(config: ClientConfig, probe: () => Promise<WireResponse>): ShieldCore {
  const listeners: ((event: ShieldEvent) => void)[] = [];
  const emit = (event: ShieldEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A faulty metrics listener must not fail an upstream call.
      }
    }
  };
  const adaptive = new AdaptiveLimit();
  const limits = config.rateLimit && { rate: config.rateLimit.perSecond, burst: config.rateLimit.burst };
  const budget = new UpstreamBudget({ ceiling: limits ? memoryCeiling(limits) : null, adaptive });
  const breaker = new UpstreamBreaker({
    ...config.breaker,
    probe,
    onTransition(from, to) {
      const line = { circuit: to, from, failuresToOpen: config.breaker.failures, halfOpenAfterMs: config.breaker.halfOpenAfterMs };
      const log = config.logger;
      if (to === 'open') log?.warn(line, 'upstream circuit opened: reads fail fast and writes are refused until a probe succeeds');
      else if (to === 'half_open') log?.warn(line, 'upstream circuit half-open: probing with GET /ping');
      else (log?.info ?? log?.warn)?.call(log, line, 'upstream circuit closed: the reward API answers again');
      emit({ type: 'circuit', from, to });
    },
  });

  const report = (priority: Priority, grant: Grant): Grant => {
    if (grant.granted) {
      if (budget.ceiling || adaptive.limit !== null) emit({ type: 'token', priority, waitedMs: grant.waitedMs });
    } else if (grant.reason !== 'aborted') emit({ type: 'busy', priority });
    return grant;
  };

  return {
    breaker,
    state: () => ({
      circuit: breaker.state,
      adaptiveLimit: adaptive.limit,
      ceiling: budget.ceiling && { perSecond: budget.ceiling.limits.rate, burst: budget.ceiling.limits.burst },
      ceilingTokens: budget.ceiling?.tokens() ?? null,
      waiting: budget.waiting(),
    }),
    listen: (listener) => void listeners.push(listener),
    shareCeiling(ceiling) {
      budget.ceiling = ceiling;
    },
    take(priority, lane, maxWaitMs, stops) {
      const taken = budget.take(priority, lane, maxWaitMs, stops);
      if (!(taken instanceof Promise)) return report(priority, taken);
      return taken.then((grant) => report(priority, grant));
    },
    refund: () => budget.refund(),
    answered(sentAt, res) {
      if (!config.adaptiveLimit) return;
      const cuts = adaptive.cuts;
      adaptive.answered(sentAt, res.status, res.retryAfterSeconds);
      if (adaptive.cuts !== cuts && adaptive.limit !== null) emit({ type: 'cut', limit: adaptive.limit });
    },
    close: () => breaker.close(),
  };
}
