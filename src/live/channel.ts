// One subscriber's queue of events, as the async iterator a subscription resolver returns.
//
// Hand-written rather than an async generator because `return()` must take effect at once: a generator
// suspended in `await` only sees the client's unsubscribe after its next event, which for a quiet order may
// be never, and the hub would never learn that the last subscriber of a poller left. @repeaterjs/repeater was
// weighed and not taken: its executor (where pushes and clean-up live) runs only at the first next(), while the
// hub registers and feeds a subscriber from subscribe on; and its buffer makes pushes wait or throw at 1024
// pending, not end a slow reader with SlowSubscriberError after what is queued.

/** Events queued for a subscriber that does not read them; past this it is ended with an error, not fed forever. */
export const DEFAULT_QUEUE_LIMIT = 10_000;

export class SlowSubscriberError extends Error {
  constructor(limit: number) {
    super(`The subscriber fell more than ${limit} events behind and was disconnected.`);
    this.name = 'SlowSubscriberError';
  }
}

interface Waiter<T> {
  resolve(result: IteratorResult<T, undefined>): void;
  reject(error: unknown): void;
}

export class Channel<T> implements AsyncIterableIterator<T, undefined> {
  private queue: T[] = [];
  private waiters: Waiter<T>[] = [];
  private closed = false;
  private failure: { error: unknown } | null = null;

  /** `onClose` runs exactly once, whichever side closes the channel. */
  constructor(
    private readonly onClose: () => void,
    private readonly limit = DEFAULT_QUEUE_LIMIT,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  push(value: T): void {
    if (this.closed) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve({ value, done: false });
    else if (this.queue.length >= this.limit) this.fail(new SlowSubscriberError(this.limit));
    else this.queue.push(value);
  }

  /** No more events: what is queued is still delivered, then the iterator is done. */
  end(): void {
    if (this.close()) this.flushWaiters();
  }

  /** Ends with an error, raised to the reader after what is already queued. */
  fail(error: unknown): void {
    if (!this.close()) return;
    this.failure = { error };
    this.flushWaiters();
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift() as T, done: false });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = null;
      return Promise.reject(error);
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The reader leaves (client unsubscribed or disconnected): drop the queue and close now. */
  return(): Promise<IteratorResult<T, undefined>> {
    this.queue = [];
    this.failure = null;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<T, undefined>> {
    this.queue = [];
    this.failure = null;
    this.end();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Marks the channel closed; true only for the call that closed it. */
  private close(): boolean {
    if (this.closed) return false;
    this.closed = true;
    this.onClose();
    return true;
  }

  private flushWaiters(): void {
    // Waiters exist only while the queue is empty, so they get the failure or the end.
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      if (this.failure) {
        waiter.reject(this.failure.error);
        this.failure = null;
      } else {
        waiter.resolve({ value: undefined, done: true });
      }
    }
  }
}
