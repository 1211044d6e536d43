import type { UpstreamLogger } from '../upstream/config.js';
import { currentScope, inScope } from '../upstream/scope.js';
import type { Logger } from './logger.js';

// The operation being executed, found without passing it around: code that has no GraphQL context (the shared
// upstream client, error masking) logs through `currentLogger` and so still writes the operation's request id,
// and the upstream client sends that id as `x-request-id`. Only query and mutation execution is scoped (see
// use-operation-log.ts): a subscription starts pollers that outlive it, and their lines and calls must not
// carry the first subscriber's id. Kept in the upstream scope's store (one AsyncLocalStorage for the process).

export interface OperationScope {
  /** The operation's logger, bound to its request id. */
  log: Logger;
  requestId: string;
}

/** Runs `fn` (and everything it starts) as part of the operation `current`. */
export function withOperation<T>(current: OperationScope, fn: () => T): T {
  return inScope(current, fn);
}

/** The current operation's logger, or `fallback` outside any operation. */
export function currentLogger(fallback: Logger): Logger {
  return currentScope<OperationScope>().log ?? fallback;
}

/** The current operation's request id; undefined outside any operation (a poller's own calls). */
export function currentRequestId(): string | undefined {
  return currentScope<OperationScope>().requestId;
}

/** The upstream client's `logger` option: its lines go to the operation that made the call. */
export function upstreamLogger(fallback: Logger): UpstreamLogger {
  return {
    debug: (obj, msg) => currentLogger(fallback).debug(obj, msg),
    warn: (obj, msg) => currentLogger(fallback).warn(obj, msg),
  };
}
