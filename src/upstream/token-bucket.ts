// A token bucket kept as GCRA (the "generic cell rate algorithm"): one number, the theoretical arrival time of
// the next token, instead of a count refilled by a timer. `rate` tokens a second, at most `burst` at once; in
// any window of t seconds at most burst + rate·t tokens are handed out. The same arithmetic runs in Redis for
// the cluster's shared budget (cluster/upstream-budget.ts), so one replica and a cluster count alike.
// Hand-written because it is a dozen lines and rate-limiter-flexible counts fixed windows, which let two
// bursts meet across a window's edge (twice the budget within one second).

export interface TokenBucketLimits {
  /** Tokens a second. */
  rate: number;
  /** Tokens available at once after a quiet period (at least 1). */
  burst: number;
}

/** A take that must leave `reserve` tokens in the bucket: what reads keep off so writes find one at once. */
export function readReserve(burst: number): number {
  return Math.min(Math.max(0, Math.floor(burst) - 1), Math.ceil(burst / 10));
}

export class TokenBucket {
  #rate: number;
  #burst: number;
  /** When the bucket is full again: it holds burst − (tat − now)·rate tokens; a take needs one beyond the reserve. */
  #tat = 0;
  readonly #now: () => number;

  constructor(limits: TokenBucketLimits, now: () => number = () => performance.now()) {
    this.#rate = limits.rate;
    this.#burst = Math.max(1, limits.burst);
    this.#now = now;
  }

  get rate(): number {
    return this.#rate;
  }

  get burst(): number {
    return this.#burst;
  }

  /** Tokens in the bucket now (fractional). */
  get tokens(): number {
    const interval = 1000 / this.#rate;
    return Math.max(0, this.#burst - Math.max(0, this.#tat - this.#now()) / interval);
  }

  /** New limits from now on; `drain` empties the bucket (after the upstream said "too many"). */
  reset(limits: TokenBucketLimits, drain = false): void {
    const now = this.#now();
    const left = this.tokens;
    this.#rate = limits.rate;
    this.#burst = Math.max(1, limits.burst);
    const keep = drain ? 0 : Math.min(left, this.#burst);
    // A bucket holding `keep` tokens has tat = now + (burst − keep) · interval.
    this.#tat = now + (this.#burst - keep) * (1000 / this.#rate);
  }

  /** Takes a token and returns 0, or returns the milliseconds until one would be there (taking nothing). */
  take(reserve = 0): number {
    const now = this.#now();
    const interval = 1000 / this.#rate;
    const tat = Math.max(this.#tat, now);
    const allowedAt = tat - (this.#burst - 1 - reserve) * interval;
    if (allowedAt > now) return Math.max(1, Math.ceil(allowedAt - now));
    this.#tat = tat + interval;
    return 0;
  }

  /** Gives back a token taken a moment ago (the other limit refused, or its attempt was not sent). */
  refund(): void {
    // Never below now: a bucket already refilled meanwhile holds no more than burst.
    this.#tat = Math.max(this.#now(), this.#tat - 1000 / this.#rate);
  }
}
