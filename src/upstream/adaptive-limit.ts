// The adaptive limit: how many requests a second the reward API accepts, learnt from its answers (AIMD, as
// TCP finds a path's capacity). The reward API limits callers without publishing numbers (a 429, sometimes with
// Retry-After), so the gateway cannot be configured with the right rate; it finds it instead.
//
// - No limit until the first "too many": a healthy upstream that never refuses costs nothing here.
// - Multiplicative decrease: a 429, or any answer carrying Retry-After, cuts the limit to DECREASE of what the
//   upstream accepted in the last second (the first time) or of the limit, and empties the bucket so no burst
//   follows. Answers to requests sent before the last cut are not counted again: they were sent under the old
//   limit, and one overshoot would otherwise cut it once per request in flight.
// - Additive increase: while the limit is what holds requests back (one waited for a token in the last
//   second), it grows by INCREASE_PER_SECOND each second. A limit nobody reaches does not grow without end.
// Per replica: replicas sharing an upstream each find their share, as TCP flows share a link; the fixed
// ceiling (UPSTREAM_RATE_LIMIT_PER_SECOND) is the one counted for the cluster.

import { readReserve, TokenBucket } from './token-bucket.js';

/** The share of the limit kept after a "too many". */
export const DECREASE = 0.8;
/** Requests a second added per second while the limit holds requests back. */
export const INCREASE_PER_SECOND = 0.5;
/** The lowest limit: one request a second still finds out when the upstream recovers. */
export const MIN_LIMIT = 1;

const burstOf = (limit: number) => Math.max(1, Math.floor(limit / 10));

export class AdaptiveLimit {
  readonly #now: () => number;
  /** Requests a second; null until the upstream first said "too many". */
  #limit: number | null = null;
  #bucket: TokenBucket | null = null;
  #lastCutAt = Number.NEGATIVE_INFINITY;
  #lastHeldAt = Number.NEGATIVE_INFINITY;
  #lastGrowAt = 0;
  /** When each accepted answer of the last second arrived (oldest first). */
  readonly #accepted: number[] = [];
  #cuts = 0;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Requests a second, or null while no limit was learnt. */
  get limit(): number | null {
    return this.#limit;
  }

  /** How many times the limit was cut. */
  get cuts(): number {
    return this.#cuts;
  }

  /** Takes a token and returns 0, or returns the milliseconds until one would be there; reads keep off the reserve. */
  take(keepReserve = false): number {
    if (!this.#bucket) return 0;
    const wait = this.#bucket.take(keepReserve ? readReserve(this.#bucket.burst) : 0);
    if (wait > 0) this.#lastHeldAt = this.#now();
    return wait;
  }

  refund(): void {
    this.#bucket?.refund();
  }

  /** The answer to a request sent at `sentAt` (this limit's clock). */
  answered(sentAt: number, status: number, retryAfterSeconds: number | null): void {
    const now = this.#now();
    if (status === 429 || retryAfterSeconds !== null) {
      if (sentAt < this.#lastCutAt) return;
      this.#cut(now);
      return;
    }
    this.#accepted.push(now);
    while (this.#accepted.length > 0 && this.#accepted[0]! <= now - 1000) this.#accepted.shift();
    this.#grow(now);
  }

  #cut(now: number): void {
    const base = this.#limit ?? Math.max(MIN_LIMIT, this.#accepted.filter((t) => t > now - 1000).length);
    this.#limit = Math.max(MIN_LIMIT, base * DECREASE);
    this.#lastCutAt = now;
    this.#lastGrowAt = now;
    this.#cuts++;
    const limits = { rate: this.#limit, burst: burstOf(this.#limit) };
    if (this.#bucket) this.#bucket.reset(limits, true);
    else {
      this.#bucket = new TokenBucket(limits, this.#now);
      this.#bucket.reset(limits, true);
    }
  }

  #grow(now: number): void {
    if (this.#limit === null || !this.#bucket) return;
    if (this.#lastHeldAt <= now - 1000) {
      this.#lastGrowAt = now;
      return;
    }
    this.#limit += (INCREASE_PER_SECOND * (now - this.#lastGrowAt)) / 1000;
    this.#lastGrowAt = now;
    this.#bucket.reset({ rate: this.#limit, burst: burstOf(this.#limit) });
  }
}
