// Injected failures, so gateway tests can meet what production does on a bad day: 429s, HTML 5xx pages,
// dropped connections, slow answers, and the worst case for exactly-once creation: a failure AFTER the order
// was created (`after: true`), where the client sees an error although the order exists, and an answer that
// arrives as a 200 but cannot be read (`garble: true`), which a client must treat as "may have happened".
import { z } from 'zod';

export const faultRuleSchema = z
  .object({
    route: z.string().min(1).optional(),
    status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503)]).optional(),
    reset: z.boolean().optional(),
    garble: z.boolean().optional(),
    latency_ms: z.number().int().min(0).max(60_000).optional(),
    rate: z.number().min(0).max(1),
    count: z.number().int().positive().optional(),
    after: z.boolean().optional(),
  })
  .refine((r) => [r.status !== undefined, r.reset === true, r.garble === true].filter(Boolean).length <= 1, {
    message: 'give one of status, reset or garble',
  })
  .refine((r) => r.status !== undefined || r.reset === true || r.garble === true || r.latency_ms !== undefined, {
    message: 'a rule needs status, reset, garble or latency_ms',
  });

export type FaultRule = z.infer<typeof faultRuleSchema>;

/** What the rules decided for one request in one phase. */
export interface FaultOutcome {
  latencyMs: number;
  failure: { status: number } | { reset: true } | { garble: true } | null;
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

export class FaultSet {
  private rules: ActiveRule[] = [];

  add(rule: FaultRule): void {
    this.rules.push({ rule, remaining: rule.count ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.rules = [];
  }

  get size(): number {
    return this.rules.length;
  }

  /**
   * Rolls every rule of the phase that matches the route. Latency of every rule that fires adds up; the first
   * failing rule that fires decides the failure and later failing rules are not rolled (so their `count` is
   * not spent on a request they could not affect).
   */
  decide(route: string, phase: 'before' | 'after'): FaultOutcome {
    const outcome: FaultOutcome = { latencyMs: 0, failure: null };
    for (const active of this.rules) {
      const { rule } = active;
      if ((rule.after === true) !== (phase === 'after')) continue;
      if (rule.route !== undefined && rule.route !== route) continue;
      if (active.remaining <= 0) continue;
      const fails = rule.status !== undefined || rule.reset === true || rule.garble === true;
      if (fails && outcome.failure) continue;
      if (Math.random() >= rule.rate) continue;
      active.remaining--;
      outcome.latencyMs += rule.latency_ms ?? 0;
      if (rule.reset) outcome.failure = { reset: true };
      else if (rule.garble) outcome.failure = { garble: true };
      else if (rule.status !== undefined) outcome.failure = { status: rule.status };
    }
    this.rules = this.rules.filter((a) => a.remaining > 0);
    return outcome;
  }
}
