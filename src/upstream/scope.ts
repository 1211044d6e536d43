import type { UpstreamLogger } from './config.js';

// What the upstream client needs to know about the operation a call is made for. It travels explicitly: the
// client's `inScope(scope)` gives a view of the client whose calls all carry it, and each GraphQL operation's
// context holds such a view (src/graph/context.ts). An AsyncLocalStorage carried it before, at the price of a
// promise hook on every promise of the process (about 7% of the gateway's CPU per nested read).
// - `lane`: whose share of upstream concurrency it uses (the bulkhead's fair share per API key);
// - `signal`: aborts every upstream call of the scope, creates included, when the gateway stops;
// - `requestId`: sent as `x-request-id` on every attempt, so the upstream's logs can be joined with ours;
// - `log`: where the client's lines for the scope go (the operation's logger, bound to its request id);
// - `priority`: 'poll' for the live pollers, whose reads the upstream budget serves after writes and before
//   other reads (budget.ts); 'write' for every call of a mutation, its reads included (use-write-priority.ts),
//   and for the lookups a write's recovery makes (call.ts).

export interface UpstreamScope {
  lane: string;
  signal?: AbortSignal;
  requestId?: string;
  log?: UpstreamLogger;
  priority?: 'poll' | 'write';
}

/** Work not made for one caller: readiness pings, live pollers, reads shared by many subscribers. */
export const GATEWAY_SCOPE: UpstreamScope = { lane: 'gateway' };
