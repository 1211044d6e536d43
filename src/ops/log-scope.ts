import type { Logger } from './logger.js';

// The operation an error came from, for code that gets the error but no GraphQL context: yoga's error masking
// (report-unexpected-errors.ts) and yoga's own logger. useOperationLog marks the errors of each operation's
// result with the operation's logger (bound to its request id) before yoga masks them, so those lines carry
// the request id the client got in `x-request-id`. Errors of no operation (a context that failed to build,
// a subscription's) are logged on the gateway logger.

const operationLogs = new WeakMap<object, Logger>();

/** Ties each error to the logger of the operation whose result carries it. */
export function markErrors(errors: readonly object[], log: Logger): void {
  for (const error of errors) operationLogs.set(error, log);
}

/** The logger of the operation `error` came from, or `fallback`. */
export function loggerOf(error: unknown, fallback: Logger): Logger {
  return (typeof error === 'object' && error !== null && operationLogs.get(error)) || fallback;
}
