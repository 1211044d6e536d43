import { AsyncLocalStorage } from 'node:async_hooks';

// What the upstream client needs to know about the operation a request is made for, carried by async
// context rather than threaded through every client method: an operation's resolvers, its DataLoader batches
// and its rescues all run inside the operation that caused them.
// - `lane`: whose share of upstream concurrency it uses (the bulkhead's fair share per API key);
// - `signal`: aborts every upstream call of the operation, creates included, when the gateway stops.
// This is the process's one AsyncLocalStorage: each one makes Node tag every promise created, so the
// operation's log scope (src/ops/log-scope.ts) keeps its fields in the same store instead of a second one.

export interface UpstreamScope {
  lane: string;
  signal?: AbortSignal;
}

/** Work not made for one caller: readiness pings, live pollers started outside an operation. */
export const GATEWAY_SCOPE: UpstreamScope = { lane: 'gateway' };

const scopes = new AsyncLocalStorage<UpstreamScope>();

/** Runs `run` with `fields` added to (or replacing those of) the current scope. */
export function inScope<T>(fields: Partial<UpstreamScope> & object, run: () => T): T {
  return scopes.run({ ...currentScope(), ...fields }, run);
}

/** The current scope; `S` names the extra fields a layer put there with `inScope` (each may be absent). */
export function currentScope<S extends object = object>(): UpstreamScope & Partial<S> {
  return (scopes.getStore() ?? GATEWAY_SCOPE) as UpstreamScope & Partial<S>;
}
