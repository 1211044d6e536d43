import type { Logger } from './logger.js';

// Process signals → one graceful stop. The first SIGTERM or SIGINT starts the stop and exits 0 when it is
// done (1 if it failed); a second one, from an operator who will not wait, exits 1 at once.
// One Ctrl-C arrives twice under `npm start`: the terminal sends SIGINT to the whole process group, npm and
// the gateway, and npm forwards its own to the gateway a moment later. The same signal again within
// REPEAT_MS is that echo, not a second request; a second Ctrl-C a person presses comes later than that.

/** How long a repeat of the first signal is taken for its echo through npm (milliseconds). */
const REPEAT_MS = 1_000;

export interface ShutdownOptions {
  logger: Logger;
  /** Both logged, so the operator knows how long the wait can be. */
  readyDelayMs: number;
  deadlineMs: number;
  /** Drains, stops accepting, closes everything. */
  stop(): Promise<void>;
}

export function handleShutdownSignals({ logger, readyDelayMs, deadlineMs, stop }: ShutdownOptions): void {
  let first: { signal: NodeJS.Signals; at: number } | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) {
      if (signal === first.signal && performance.now() - first.at < REPEAT_MS) {
        logger.debug({ signal }, 'the same signal again at once (npm forwards what the terminal sent): still draining');
        return;
      }
      logger.warn({ signal }, 'second signal: exiting now without waiting for in-flight operations');
      process.exit(1);
    }
    first = { signal, at: performance.now() };
    logger.info({ signal, readyDelayMs, deadlineMs }, 'shutting down: draining, then waiting for in-flight operations');
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
