// The timer behind one watched key: poll now (the baseline), then again one interval after each poll ends.
// Polls never overlap. Jitter spreads pollers started together so they do not hit the upstream in step;
// failures back off exponentially up to a cap and keep going, so subscribers ride out an outage.

export interface PollSchedule {
  intervalMs: number;
  /** Fraction of the delay added or taken at random, e.g. 0.1 for ±10%. */
  jitter: number;
  /** Backoff cap, in intervals: with 12 and the default 5 s interval, at most one attempt a minute. */
  maxBackoffIntervals: number;
}

export const DEFAULT_JITTER = 0.1;
export const DEFAULT_MAX_BACKOFF_INTERVALS = 12;

/** Delay before the next poll after `failures` consecutive failed polls (0 after a success). */
export function nextDelay(failures: number, schedule: PollSchedule, random: () => number = Math.random): number {
  const { intervalMs, jitter, maxBackoffIntervals } = schedule;
  const base = failures === 0 ? intervalMs : intervalMs * Math.min(2 ** failures, maxBackoffIntervals);
  return Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
}

export interface PollerCallbacks {
  /** One poll: the baseline while no poll has succeeded yet. Rejections count as failures. */
  run(signal: AbortSignal, baseline: boolean): Promise<void>;
  onSuccess(report: { baseline: boolean; durationMs: number }): void;
  onFailure(report: { error: unknown; consecutiveFailures: number; retryInMs: number }): void;
}

export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: AbortController | null = null;
  private stopped = false;
  private succeeded = false;
  private failures = 0;

  constructor(
    private readonly schedule: PollSchedule,
    private readonly callbacks: PollerCallbacks,
  ) {}

  start(): void {
    void this.poll();
  }

  /** Cancels the pending timer and aborts a poll in flight; no further poll is scheduled. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.inFlight?.abort();
    this.inFlight = null;
  }

  private async poll(): Promise<void> {
    this.timer = null;
    const controller = new AbortController();
    this.inFlight = controller;
    const baseline = !this.succeeded;
    const started = performance.now();
    let failure: { error: unknown } | null = null;
    try {
      await this.callbacks.run(controller.signal, baseline);
    } catch (error) {
      failure = { error };
    } finally {
      if (this.inFlight === controller) this.inFlight = null;
    }
    // A failure after stop() is the abort itself; a poll that completed is still reported (it may be the one
    // whose outcome ended the last subscription and so stopped the poller).
    if (failure && this.stopped) return;

    if (failure) this.failures += 1;
    else {
      this.succeeded = true;
      this.failures = 0;
    }
    const delay = nextDelay(this.failures, this.schedule);
    if (failure) {
      this.callbacks.onFailure({ error: failure.error, consecutiveFailures: this.failures, retryInMs: delay });
    } else {
      this.callbacks.onSuccess({ baseline, durationMs: performance.now() - started });
    }
    // The callbacks may have stopped the poller, so the next poll is scheduled only afterwards.
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), delay);
  }
}
