// A counting semaphore in front of the connection pool, shared fairly between callers. A burst of gateway
// work (a big query fanning out, many pollers waking at once) cannot put more than `maxInFlight` requests on
// the upstream, and one lane (one API key) cannot hold more than its share of them: the others keep slots of
// their own instead of queueing behind it. Waiters queue per lane; a freed slot goes to the lane served
// longest ago, so lanes take turns. Queues are bounded and each wait is bounded, so overload turns into a
// fast, clear refusal instead of a growing queue; leaving a queue (timeout, abort) is O(1) whatever its size.

import { Yallist, type Node } from 'yallist';
import { NO_STOPS, stopped, unwatch, watch, type Stoppable, type Stops } from './stops.js';

export type Refusal = 'timeout' | 'aborted' | 'full';

export interface Admitted {
  admitted: true;
  /** Frees the slot; works once. */
  release: () => void;
}

export type Admission = Admitted | { admitted: false; reason: Refusal };

export interface BulkheadOptions {
  /** Upstream requests in flight at once, all lanes together. */
  maxInFlight: number;
  /** The part (0–1] of maxInFlight and of maxQueued one lane may take. */
  laneShare: number;
  /** Requests waiting for a slot, all lanes together; beyond it a request is refused at once. */
  maxQueued: number;
}

interface Waiter extends Stoppable {
  admit(): void;
}

interface Lane {
  name: string;
  active: number;
  waiting: Yallist<Waiter>;
}

export class Bulkhead {
  readonly maxInFlight: number;
  /** Slots one lane may hold at once. */
  readonly laneMaxInFlight: number;
  readonly maxQueued: number;
  readonly laneMaxQueued: number;
  #active = 0;
  #queued = 0;
  /** Lanes with work in flight or waiting, least recently served first (a served lane moves to the end). */
  readonly #lanes = new Map<string, Lane>();

  constructor({ maxInFlight, laneShare, maxQueued }: BulkheadOptions) {
    this.maxInFlight = maxInFlight;
    this.laneMaxInFlight = Math.max(1, Math.floor(maxInFlight * laneShare));
    this.maxQueued = maxQueued;
    this.laneMaxQueued = Math.max(1, Math.ceil(maxQueued * laneShare));
  }

  get inFlight(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queued;
  }

  /** A slot at once when the lane may have one now (no promise, no queue), else null. */
  tryAcquire(laneName: string): Admitted | null {
    const lane = this.#lanes.get(laneName);
    if (!lane) {
      if (this.#active >= this.maxInFlight) return null;
      const fresh: Lane = { name: laneName, active: 0, waiting: new Yallist<Waiter>() };
      this.#lanes.set(laneName, fresh);
      return this.#admit(fresh);
    }
    // A lane with waiters keeps its order: a newcomer of that lane cannot overtake them.
    if (lane.waiting.length === 0 && this.#active < this.maxInFlight && lane.active < this.laneMaxInFlight) return this.#admit(lane);
    return null;
  }

  acquire(laneName: string, waitMs: number, stops: Stops = NO_STOPS): Promise<Admission> {
    if (stopped(stops)) return Promise.resolve({ admitted: false, reason: 'aborted' });
    const now = this.tryAcquire(laneName);
    if (now) return Promise.resolve(now);
    const lane = this.#lanes.get(laneName) ?? { name: laneName, active: 0, waiting: new Yallist<Waiter>() };
    if (this.#queued >= this.maxQueued || lane.waiting.length >= this.laneMaxQueued) {
      return Promise.resolve({ admitted: false, reason: 'full' });
    }
    this.#lanes.set(laneName, lane);
    return new Promise((resolve) => {
      // A waiter ends once, admitted or gone; whatever comes after is a no-op. A stop can reach a waiter that
      // was admitted a moment before by the same stop: stopping an exchange frees its slot at once, and that
      // slot goes to the next waiter, which may be one the stop has yet to wake.
      let settled = false;
      const leave = (reason: Refusal) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unwatch(stops, waiter);
        lane.waiting.removeNode(node);
        this.#queued--;
        this.#forgetIfIdle(lane);
        resolve({ admitted: false, reason });
      };
      const waiter: Waiter = {
        admit: () => {
          settled = true;
          clearTimeout(timer);
          unwatch(stops, waiter);
          resolve(this.#admit(lane));
        },
        stop: () => leave('aborted'),
      };
      const timer = setTimeout(() => leave('timeout'), waitMs);
      lane.waiting.push(waiter);
      const node = lane.waiting.tail as Node<Waiter>;
      this.#queued++;
      watch(stops, waiter);
    });
  }

  #admit(lane: Lane): Admitted {
    this.#active++;
    lane.active++;
    let released = false;
    return {
      admitted: true,
      // Works once: a double release must not open an extra slot.
      release: () => {
        if (released) return;
        released = true;
        this.#active--;
        lane.active--;
        this.#forgetIfIdle(lane);
        this.#dispatch();
      },
    };
  }

  /** Hands free slots to waiting lanes in turn, skipping lanes already at their share. */
  #dispatch(): void {
    while (this.#active < this.maxInFlight && this.#queued > 0) {
      let next: Lane | undefined;
      for (const lane of this.#lanes.values()) {
        if (lane.waiting.length > 0 && lane.active < this.laneMaxInFlight) {
          next = lane;
          break;
        }
      }
      if (!next) return;
      const waiter = next.waiting.shift() as Waiter;
      this.#queued--;
      this.#lanes.delete(next.name);
      this.#lanes.set(next.name, next);
      waiter.admit();
    }
  }

  #forgetIfIdle(lane: Lane): void {
    if (lane.active === 0 && lane.waiting.length === 0) this.#lanes.delete(lane.name);
  }
}
