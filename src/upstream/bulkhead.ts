// A counting semaphore in front of the connection pool: a burst of gateway work (a big query fanning out,
// many pollers waking at once) cannot put more than `maxInFlight` requests on the upstream. The rest wait in
// FIFO order, each for a bounded time, so overload turns into a fast, clear error instead of a growing queue.

export type Admission =
  | { admitted: true; release: () => void }
  | { admitted: false; reason: 'timeout' | 'aborted' };

interface Waiter {
  admit: () => void;
}

export class Bulkhead {
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(readonly maxInFlight: number) {}

  get inFlight(): number {
    return this.#active;
  }

  acquire(waitMs: number, signal?: AbortSignal): Promise<Admission> {
    if (signal?.aborted) return Promise.resolve({ admitted: false, reason: 'aborted' });
    if (this.#active < this.maxInFlight) {
      this.#active++;
      return Promise.resolve({ admitted: true, release: this.#releaser() });
    }
    return new Promise((resolve) => {
      const leave = (reason: 'timeout' | 'aborted') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
        resolve({ admitted: false, reason });
      };
      const onAbort = () => leave('aborted');
      const timer = setTimeout(() => leave('timeout'), waitMs);
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve({ admitted: true, release: this.#releaser() });
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** A release that works once: a double release must not open an extra slot. */
  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Hand the slot straight to the next waiter so a newcomer cannot overtake the queue.
      const next = this.#queue.shift();
      if (next) next.admit();
      else this.#active--;
    };
  }
}
