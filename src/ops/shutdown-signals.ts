import type { Logger } from './logger.js';

// Process signals → one graceful stop. The first SIGTERM or SIGINT starts the stop and exits 0 when it is
// done (1 if it failed); a second one, from an operator who will not wait, exits 1 at once.

export interface ShutdownOptions {
  logger: Logger;
  /** Both logged, so the operator knows how long the wait can be. */
  readyDelayMs: number;
  deadlineMs: number;
  /** Drains, stops accepting, closes everything. */
  stop(): Promise<void>;
}

export function handleShutdownSignals({ logger, readyDelayMs, deadlineMs, stop }: ShutdownOptions): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now without waiting for in-flight operations');
      process.exit(1);
    }
    stopping = true;
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
