import type { YogaLogger } from 'graphql-yoga';
import { loggerOf } from './log-scope.js';
import type { Logger } from './logger.js';

// yoga's own log calls, as JSON lines on the gateway's logger. Its debug lines narrate every request and go
// to trace. Its error calls repeat, without judgement, every error the gateway masked, expected upstream
// failures included: they go to debug, because reportUnexpectedErrors already logs the ones that matter at
// error level. An error of an operation's result is logged on that operation's logger (log-scope.ts).

function write(log: (obj: object, msg?: string) => void, args: unknown[]): void {
  const [first, ...rest] = args;
  if (first instanceof Error) log({ err: first }, 'yoga reported an error');
  else log({ ...(rest.length ? { details: rest } : {}) }, String(first));
}

export function yogaLogger(logger: Logger): YogaLogger {
  return {
    // Several a request: not even built unless trace is on.
    debug: (...args) => void (logger.isLevelEnabled('trace') && write((o, m) => logger.trace(o, m), args)),
    info: (...args) => write((o, m) => logger.info(o, m), args),
    warn: (...args) => write((o, m) => logger.warn(o, m), args),
    error: (...args) => write((o, m) => loggerOf(args[0], logger).debug(o, m), args),
  };
}
