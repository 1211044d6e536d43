import { AsyncLocalStorage } from 'node:async_hooks';
import type { UpstreamLogger } from '../upstream/config.js';
import type { Logger } from './logger.js';

// The logger of the operation being executed, found without passing it around: code that has no GraphQL
// context (the shared upstream client, error masking) logs through `currentLogger` and so still writes the
// operation's request id. Only query and mutation execution is scoped (see use-operation-log.ts): a
// subscription starts pollers that outlive it, and their lines must not carry the first subscriber's id.

const scope = new AsyncLocalStorage<Logger>();

/** Runs `fn` (and everything it starts) with `log` as the current logger. */
export function withLogger<T>(log: Logger, fn: () => T): T {
  return scope.run(log, fn);
}

/** The current operation's logger, or `fallback` outside any operation. */
export function currentLogger(fallback: Logger): Logger {
  return scope.getStore() ?? fallback;
}

/** The upstream client's `logger` option: its lines go to the operation that made the call. */
export function upstreamLogger(fallback: Logger): UpstreamLogger {
  return {
    debug: (obj, msg) => currentLogger(fallback).debug(obj, msg),
    warn: (obj, msg) => currentLogger(fallback).warn(obj, msg),
  };
}
