// The upstream budget: every attempt (a retry too) takes a token before it is sent. Two limits give tokens,
// and an attempt needs one of each:
// - the fixed ceiling, UPSTREAM_RATE_LIMIT_PER_SECOND / _BURST: this process's token bucket, or in cluster mode
//   one bucket in Redis for every replica (cluster/upstream-budget.ts); none when unset;
// - the adaptive limit (adaptive-limit.ts): what the reward API has shown it accepts.
// When tokens are short, waiters are served by priority, whatever the order they came in: writes, then pollers,
// then reads. Reads also keep off the last tenth of each bucket (readReserve), so a write arriving after a
// flood of reads, on this replica or another, finds a token at once instead of queueing behind them.
// Within a priority the waiting keys (lanes, as in the bulkhead) take turns: the next token goes to the lane
// served longest ago, so while n keys wait each gets at least one token in n, whatever one of them queues.
// A key alone takes every token (nothing is kept back from a key nobody else competes with).
// A token is spent when its attempt is sent; one taken for an attempt that is then not sent (refused by the
// circuit, its slot not given, its caller gone) is given back with `refund`, so it counts for no one.
// A read waits at most UPSTREAM_QUEUE_TIMEOUT_MS (a read whose turn is plainly further away is refused at once)
// and is then refused as `busy` (UPSTREAM_BUSY, nothing sent); writes and pollers wait up to the call's budget.
// A poller that waits starts its poll later: its interval stretches by the wait (reported as a metric).

import { Yallist, type Node } from 'yallist';
import type { AdaptiveLimit } from './adaptive-limit.js';
import { stopped, watch, type Stoppable, type Stops } from './stops.js';
import { readReserve, TokenBucket, type TokenBucketLimits } from './token-bucket.js';
import type { Ceiling, CeilingAnswer, Priority } from './types.js';

const ORDER: readonly Priority[] = ['write', 'poll', 'read'];

export function memoryCeiling(limits: TokenBucketLimits, now?: () => number): Ceiling {
  const bucket = new TokenBucket(limits, now);
  return {
    limits,
    take(reserve) {
      const waitMs = bucket.take(reserve);
      return { granted: waitMs === 0, waitMs };
    },
    refund: () => bucket.refund(),
    tokens: () => bucket.tokens,
  };
}

export type Grant = { granted: true; waitedMs: number } | { granted: false; reason: 'timeout' | 'aborted' | 'backlog'; retryAfterSeconds: number };

const GRANTED: Grant = { granted: true, waitedMs: 0 };

interface Waiter extends Stoppable {
  priority: Priority;
  lane: string;
  since: number;
  resolve(grant: Grant): void;
}

/** The waiters of one priority: per lane, lanes least recently served first (a served lane moves to the end). */
class Turns {
  readonly lanes = new Map<string, Yallist<Waiter>>();
  length = 0;

  push(waiter: Waiter): Node<Waiter> {
    let queue = this.lanes.get(waiter.lane);
    if (!queue) this.lanes.set(waiter.lane, (queue = new Yallist<Waiter>()));
    queue.push(waiter);
    this.length++;
    return queue.tail as Node<Waiter>;
  }

  /** A waiter that left before its turn (a waiter served is shifted, and never leaves after). */
  remove(waiter: Waiter, node: Node<Waiter>): void {
    const queue = this.lanes.get(waiter.lane)!;
    queue.removeNode(node);
    this.length--;
    if (queue.length === 0) this.lanes.delete(waiter.lane);
  }

  head(): Waiter | undefined {
    for (const queue of this.lanes.values()) return queue.head?.value;
    return undefined;
  }

  /** Serves the head: it leaves its queue and its lane takes its turn at the end. */
  shift(): Waiter | undefined {
    for (const [lane, queue] of this.lanes) {
      const waiter = queue.shift();
      this.length--;
      this.lanes.delete(lane);
      if (queue.length > 0) this.lanes.set(lane, queue);
      return waiter;
    }
    return undefined;
  }

  /** Waiters served before a newcomer of `lane`, lanes taking turns: up to its position from every lane. */
  ahead(lane: string): number {
    const position = (this.lanes.get(lane)?.length ?? 0) + 1;
    let n = position - 1;
    for (const [other, queue] of this.lanes) if (other !== lane) n += Math.min(queue.length, position);
    return n;
  }
}

export interface BudgetOptions {
  ceiling: Ceiling | null;
  adaptive: AdaptiveLimit;
  now?: () => number;
}

export class UpstreamBudget {
  #ceiling: Ceiling | null;
  readonly #adaptive: AdaptiveLimit;
  readonly #now: () => number;
  readonly #queues: Record<Priority, Turns> = { write: new Turns(), poll: new Turns(), read: new Turns() };
  #pumping = false;
  #timer: NodeJS.Timeout | null = null;

  constructor({ ceiling, adaptive, now = () => performance.now() }: BudgetOptions) {
    this.#ceiling = ceiling;
    this.#adaptive = adaptive;
    this.#now = now;
  }

  /** Cluster mode: the ceiling counted in Redis from now on. */
  set ceiling(ceiling: Ceiling | null) {
    this.#ceiling = ceiling;
  }

  get ceiling(): Ceiling | null {
    return this.#ceiling;
  }

  /** Waiting for a token now, by priority. */
  waiting(): Record<Priority, number> {
    return { write: this.#queues.write.length, poll: this.#queues.poll.length, read: this.#queues.read.length };
  }

  /**
   * A token for one attempt of `lane`, or the refusal after `maxWaitMs`. Synchronous when a token is there at
   * once in this process (no budget in force, or the memory ceiling): no promise per attempt, and arrivals
   * queue in a strict order of priority.
   */
  take(priority: Priority, lane: string, maxWaitMs: number, stops: Stops): Grant | Promise<Grant> {
    if (stopped(stops)) return { granted: false, reason: 'aborted', retryAfterSeconds: 0 };
    if (!this.#ceiling && this.#adaptive.limit === null) return GRANTED;
    if (this.#waitingAtOrAbove(priority) > 0) return this.#wait(priority, lane, maxWaitMs, stops);
    const tried = this.#takeOrWait(priority);
    if (tried === 0) return GRANTED;
    if (typeof tried === 'number') return this.#wait(priority, lane, maxWaitMs, stops);
    return tried.then((waitMs) => (waitMs === 0 ? GRANTED : this.#wait(priority, lane, maxWaitMs, stops)));
  }

  /** Gives back a token granted for an attempt that was not sent after all: to both limits it came from. */
  refund(): void {
    this.#adaptive.refund();
    // A refund Redis could not take leaves the shared bucket one token short for one interval: nothing to retry.
    void Promise.resolve(this.#ceiling?.refund()).catch(() => undefined);
    if (this.#waitingAtOrAbove('read') > 0) this.#pump();
  }

  #wait(priority: Priority, lane: string, maxWaitMs: number, stops: Stops): Grant | Promise<Grant> {
    // Asked again here: a stop that came while the shared ceiling was asked has fired already, and a wait
    // registered after it would hear of it only at its timeout.
    if (stopped(stops)) return { granted: false, reason: 'aborted', retryAfterSeconds: 0 };
    const expectedMs = ((this.#ahead(priority, lane) + 1) * 1000) / this.#rate();
    if (priority === 'read' && expectedMs > maxWaitMs) {
      return { granted: false, reason: 'backlog', retryAfterSeconds: Math.max(1, Math.ceil(expectedMs / 1000)) };
    }
    return new Promise<Grant>((resolve) => {
      const queue = this.#queues[priority];
      let settled = false;
      const leave = (reason: 'timeout' | 'aborted') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        watching.end();
        queue.remove(waiter, node);
        const left = ((this.#ahead(priority, lane) + 1) * 1000) / this.#rate();
        resolve({ granted: false, reason, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) });
      };
      const waiter: Waiter = {
        priority,
        lane,
        since: this.#now(),
        resolve: (grant) => {
          settled = true;
          clearTimeout(timer);
          watching.end();
          resolve(grant);
        },
        stop: () => leave('aborted'),
      };
      const timer = setTimeout(() => leave('timeout'), Math.max(0, maxWaitMs));
      const node = queue.push(waiter);
      const watching = watch(stops, waiter);
      this.#pump();
    });
  }

  /** Tokens a second the tighter limit hands out now. */
  #rate(): number {
    return Math.max(0.001, Math.min(this.#adaptive.limit ?? Infinity, this.#ceiling?.limits.rate ?? Infinity));
  }

  /** Waiters of this priority or a higher one. */
  #waitingAtOrAbove(priority: Priority): number {
    let n = 0;
    for (const p of ORDER) {
      n += this.#queues[p].length;
      if (p === priority) return n;
    }
    return n;
  }

  /** Waiters served before a newcomer of this priority and lane. */
  #ahead(priority: Priority, lane: string): number {
    let n = 0;
    for (const p of ORDER) {
      if (p === priority) return n + this.#queues[p].ahead(lane);
      n += this.#queues[p].length;
    }
    return n;
  }

  /**
   * One token of each limit and 0, or the milliseconds until one might be there (what one limit gave is given
   * back when the other refuses). A promise only when the ceiling is Redis's.
   */
  #takeOrWait(priority: Priority): number | Promise<number> {
    const ceiling = this.#ceiling;
    const adaptiveWait = this.#adaptive.take(priority === 'read');
    if (adaptiveWait > 0) return adaptiveWait;
    if (!ceiling) return 0;
    const settle = (answer: CeilingAnswer): number => {
      if (answer.granted) return 0;
      this.#adaptive.refund();
      return Math.max(1, answer.waitMs);
    };
    // The ceiling could not be asked (a Redis error): the adaptive limit alone decides this attempt.
    const asked = ceiling.take(priority === 'read' ? readReserve(ceiling.limits.burst) : 0);
    return asked instanceof Promise ? asked.then(settle, () => 0) : settle(asked);
  }

  #head(): Waiter | undefined {
    for (const p of ORDER) {
      const head = this.#queues[p].head();
      if (head) return head;
    }
    return undefined;
  }

  /** Hands tokens to waiters, highest priority first, one at a time; sleeps until the next token otherwise. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    void (async () => {
      try {
        for (;;) {
          const head = this.#head();
          if (!head) return;
          const tried = this.#takeOrWait(head.priority);
          const waitMs = typeof tried === 'number' ? tried : await tried;
          if (waitMs > 0) {
            this.#timer = setTimeout(() => this.#pump(), waitMs);
            return;
          }
          // The head may have left while the ceiling was asked: the token goes to whoever is first now.
          const first = this.#head();
          if (!first) {
            this.refund();
            return;
          }
          this.#queues[first.priority].shift();
          first.resolve({ granted: true, waitedMs: this.#now() - first.since });
        }
      } finally {
        this.#pumping = false;
      }
    })();
  }
}
