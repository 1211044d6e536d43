// A counting semaphore in front of the connection pool, shared fairly between callers. A burst of gateway
// work (a big query fanning out, many pollers waking at once) cannot put more than `maxInFlight` requests on
// the upstream, and one lane (one API key) is sure of its share of them: the others keep slots of their own
// instead of queueing behind it. A lane alone (no other lane with work now or in the last LEND_QUIET_MS) may
// go over its share with slots nobody uses ("borrowing"), but only while, after it, as many slots stay free as
// it has borrowed: it holds at most its share and half of the rest, and another lane that comes finds a free
// slot at once even if every call of the first one hangs. A lone busy key was held to its share while the
// upstream sat idle (bench/RESULTS.md, 0k and 0l); lending beside another key too cost that key's reads a
// quarter more p99 under a flood (the bench's hostile neighbour), so a key borrows only while it is alone.
// Waiters queue per lane; a freed slot goes to the lane served longest ago that may take it, so lanes take
// turns. Leaving a queue (timeout, abort) is O(1) whatever its size.
//
// What is refused is decided by time, not by a count that ordinary work exceeds: a request is refused at once
// when its lane's queue has shown that it would not be served within the wait it is allowed, and queued
// otherwise, however many wait. The evidence is each lane's drain time, the milliseconds a waiter waits per
// waiter at or ahead of its position. A waiter that timed out proves the lane drains at least waitMs /
// position slowly, and the estimate rises to that at once; a waiter admitted sooner than the estimate
// said lowers it a step. The lane's turns among other lanes, the upstream's speed and this process's own load
// all show in it. A lane whose waiters never timed out refuses nothing early: a dashboard queueing thousands of
// calls on a healthy upstream is served, each wait still bounded by its timeout; once a slow upstream has made
// waiters time out, a backlog it could not serve in time is refused without waiting. `maxQueued` only bounds
// memory.

import { Yallist, type Node } from 'yallist';
import { NO_STOPS, stopped, watch, type Stoppable, type Stops } from './stops.js';

/** `backlog`: the lane's queue drains too slowly for this wait; `full`: the bound on memory. */
export type Refusal = 'timeout' | 'aborted' | 'full' | 'backlog';

export interface Admitted {
  admitted: true;
  /** Frees the slot; works once. */
  release: () => void;
}

export type Admission = Admitted | { admitted: false; reason: Refusal; expectedWaitMs?: number };

export interface BulkheadOptions {
  /** Upstream requests in flight at once, all lanes together. */
  maxInFlight: number;
  /** The part (0–1] of maxInFlight one lane is sure of (it may borrow more), and of maxQueued it may take. */
  laneShare: number;
  /** Requests waiting for a slot, all lanes together: a bound on memory; beyond it a request is refused at once. */
  maxQueued: number;
  /** Milliseconds, for the waits measured; a test's clock. */
  now?: () => number;
}

/** How long after another lane's last work a lane may not borrow: a key reading one query after another is not alone. */
export const LEND_QUIET_MS = 1_000;
/** How far one waiter admitted faster than estimated lowers its lane's drain time: slow to relax, quick to protect. */
const RELAX_WEIGHT = 0.1;
/** Lanes whose drain is remembered while idle (lanes are API keys: a handful); the oldest goes first. */
const REMEMBERED_LANES = 1_000;

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
  /** Slots one lane is sure of; it may borrow more (mayTake). */
  readonly laneMaxInFlight: number;
  readonly maxQueued: number;
  readonly laneMaxQueued: number;
  readonly #now: () => number;
  #active = 0;
  #queued = 0;
  /** Per lane: milliseconds a waiter waits per waiter at or ahead of its position; kept while the lane is idle. */
  readonly #drainMs = new Map<string, number>();
  /** Lanes with work in flight or waiting, least recently served first (a served lane moves to the end). */
  readonly #lanes = new Map<string, Lane>();
  /**
   * The last two lanes to have had work, most recent first, and when: for any lane, the other one most recently
   * busy is the first of them that is not itself.
   */
  #recent: { lane: string; at: number }[] = [];

  constructor({ maxInFlight, laneShare, maxQueued, now = () => performance.now() }: BulkheadOptions) {
    this.#now = now;
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
    if (lane.waiting.length === 0 && this.#mayTake(lane)) return this.#admit(lane);
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
    const position = lane.waiting.length + 1;
    const expectedWaitMs = position * (this.#drainMs.get(laneName) ?? 0);
    if (expectedWaitMs > waitMs) return Promise.resolve({ admitted: false, reason: 'backlog', expectedWaitMs: Math.round(expectedWaitMs) });
    this.#lanes.set(laneName, lane);
    const since = this.#now();
    return new Promise((resolve) => {
      // A waiter ends once, admitted or gone; whatever comes after is a no-op. A stop can reach a waiter that
      // was admitted a moment before by the same stop: stopping an exchange frees its slot at once, and that
      // slot goes to the next waiter, which may be one the stop has yet to wake.
      let settled = false;
      const leave = (reason: Refusal) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        watching.end();
        lane.waiting.removeNode(node);
        this.#queued--;
        this.#forgetIfIdle(lane);
        resolve({ admitted: false, reason });
      };
      const waiter: Waiter = {
        admit: () => {
          settled = true;
          clearTimeout(timer);
          const drainMs = this.#drainMs.get(laneName);
          const measured = (this.#now() - since) / position;
          if (drainMs !== undefined && measured < drainMs) this.#remember(laneName, drainMs + RELAX_WEIGHT * (measured - drainMs));
          watching.end();
          resolve(this.#admit(lane));
        },
        stop: () => leave('aborted'),
      };
      const timer = setTimeout(() => {
        // No slot came within waitMs for the waiter at `position`: the lane drains at least this slowly, which
        // the next arrivals must know before they wait as long for nothing.
        this.#remember(laneName, Math.max(this.#drainMs.get(laneName) ?? 0, waitMs / position));
        leave('timeout');
      }, waitMs);
      lane.waiting.push(waiter);
      const node = lane.waiting.tail as Node<Waiter>;
      this.#queued++;
      const watching = watch(stops, waiter);
    });
  }

  /**
   * Whether `lane` may take a free slot now: within its share, or over it (borrowing) while it is alone and as
   * many slots as it would then have borrowed stay free after it.
   */
  #mayTake(lane: Lane): boolean {
    const free = this.maxInFlight - this.#active;
    if (free <= 0) return false;
    if (lane.active < this.laneMaxInFlight) return true;
    return free - 1 >= lane.active + 1 - this.laneMaxInFlight && this.#alone(lane.name);
  }

  /**
   * No other lane has work now, nor had any in the last LEND_QUIET_MS. Asked when a slot is taken or freed: a
   * waiter kept from borrowing by the quiet window borrows at the next release, not when the window ends.
   */
  #alone(laneName: string): boolean {
    if (this.#lanes.size > (this.#lanes.has(laneName) ? 1 : 0)) return false;
    const other = this.#recent.find((entry) => entry.lane !== laneName);
    return !other || this.#now() - other.at >= LEND_QUIET_MS;
  }

  /** Notes that `laneName` has work now (a slot taken or freed). */
  #busy(laneName: string): void {
    const at = this.#now();
    if (this.#recent[0]?.lane === laneName) this.#recent[0].at = at;
    else this.#recent = [{ lane: laneName, at }, ...this.#recent.slice(0, 1)];
  }

  #remember(laneName: string, drainMs: number): void {
    if (this.#drainMs.size >= REMEMBERED_LANES && !this.#drainMs.has(laneName)) this.#drainMs.delete(this.#drainMs.keys().next().value!);
    this.#drainMs.set(laneName, drainMs);
  }

  #admit(lane: Lane): Admitted {
    this.#active++;
    lane.active++;
    this.#busy(lane.name);
    let released = false;
    return {
      admitted: true,
      // Works once: a double release must not open an extra slot.
      release: () => {
        if (released) return;
        released = true;
        this.#active--;
        lane.active--;
        this.#busy(lane.name);
        this.#forgetIfIdle(lane);
        this.#dispatch();
      },
    };
  }

  /**
   * Hands free slots to waiting lanes in turn, to each as mayTake allows; a slot no waiting lane may take stays
   * free for a lane that comes. A lane under its share never waits beside a free slot, and a lane may borrow
   * only with two slots free, so a slot freed while a lane under its share waits is always that lane's.
   */
  #dispatch(): void {
    while (this.#active < this.maxInFlight && this.#queued > 0) {
      let next: Lane | undefined;
      for (const lane of this.#lanes.values()) {
        if (lane.waiting.length > 0 && this.#mayTake(lane)) {
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
