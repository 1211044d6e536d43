// What the live hub tells the outside world: hooks for metrics and tests, and the log lines an operator needs
// when the upstream stays down. Hooks receive no tokens or bodies, only keys, counts and the error.

export interface PollReport {
  /** The watched key, e.g. `campaign:<uuid>`, `account`, `funds`. */
  key: string;
  baseline: boolean;
  durationMs: number;
  /** Events this poll delivered (before per-subscriber filtering). */
  events: number;
}

export interface PollErrorReport {
  key: string;
  error: unknown;
  consecutiveFailures: number;
  /** When the poller tries again; grows exponentially while the failures last. */
  retryInMs: number;
}

export interface LiveListener {
  /** A poll begins (with onPoll / onPollError it tells which keys have a request in flight). */
  onPollStart?(key: string): void;
  onPoll?(report: PollReport): void;
  onPollError?(report: PollErrorReport): void;
  onPollerStart?(key: string): void;
  onPollerStop?(key: string): void;
  /** This replica took over a key whose previous poller vanished without releasing it. */
  onTakeover?(takeover: { key: string; from: string }): void;
  /** Events this replica's poll appended to a log. */
  onPublish?(events: number): void;
  /** Log entries this replica read for its subscribers. */
  onReceive?(entries: number): void;
}

export interface LiveLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export const consoleLogger: LiveLogger = {
  warn: (obj, msg) => console.warn(msg ?? '', JSON.stringify(obj)),
  info: (obj, msg) => console.info(msg ?? '', JSON.stringify(obj)),
};

/** Consecutive failed polls after which a key is reported as in an outage rather than a blip. */
export const OUTAGE_AFTER_FAILURES = 3;

/** A short, token-free description of a poll failure for logs. */
export function describeFailure(error: unknown): Record<string, unknown> {
  if (error && typeof error === 'object') {
    const e = error as { name?: unknown; kind?: unknown; status?: unknown; code?: unknown; message?: unknown };
    return { name: e.name, kind: e.kind, status: e.status, code: e.code, message: e.message };
  }
  return { message: String(error) };
}

/**
 * Logs one warning when a key's polls have failed OUTAGE_AFTER_FAILURES times in a row and one line when it
 * recovers, instead of a line per failed poll.
 */
export function outageLogger(logger: LiveLogger, threshold = OUTAGE_AFTER_FAILURES): LiveListener {
  const failing = new Map<string, number>();
  return {
    onPollError({ key, error, consecutiveFailures, retryInMs }) {
      failing.set(key, consecutiveFailures);
      if (consecutiveFailures === threshold) {
        logger.warn(
          { key, consecutiveFailures, retryInMs, error: describeFailure(error) },
          'live: upstream polls keep failing; subscribers stay connected and polling backs off',
        );
      }
    },
    onPoll({ key }) {
      const failures = failing.get(key);
      if (failures === undefined) return;
      failing.delete(key);
      if (failures >= threshold) logger.info({ key, failedPolls: failures }, 'live: upstream polls recovered');
    },
    onPollerStop(key) {
      failing.delete(key);
    },
  };
}
