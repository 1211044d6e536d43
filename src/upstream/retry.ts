// When to try an upstream request again and how long to wait first. Why not undici's RetryAgent: it bounds
// attempts and single waits but not the total time of a call, has no jitter, decides by HTTP method rather
// than by "this POST carries an idempotent id", and retries inside the dispatcher, below the bulkhead and the
// per-attempt logging. The policy is small enough to own.

import type { RetryPolicy } from './config.js';
import type { UpstreamError } from './errors.js';
import { stopped, watch, type Stoppable, type Stops } from './stops.js';

/** Worth another try: the failure is likely to pass. Overload and aborts are not retried on purpose. */
export function isTransient(error: UpstreamError): boolean {
  if (error.kind === 'network' || error.kind === 'timeout') return true;
  return error.kind === 'http' && (error.status === 429 || error.status >= 500);
}

/**
 * The request may have been processed even though no success came back. A 429 is a clear "not processed"; a
 * 200 whose body could not be read is the opposite, a success we cannot see.
 */
export function isAmbiguous(error: UpstreamError): boolean {
  if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'invalid_response') return true;
  if (error.kind === 'aborted') return error.inFlight;
  return error.kind === 'http' && error.status >= 500;
}

/**
 * The wait before retry number `retry` (1 for the second attempt), or null when no retry should happen:
 * attempts used up, or the wait would not end within `msLeft` (the budget left, less the time kept for the
 * attempt itself).
 * Full jitter (uniform in [0, min(maxDelay, base * 2^(retry-1))]) spreads a burst of failing callers apart;
 * a Retry-After from the upstream is a floor, honoured even above maxDelayMs.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterSeconds: number | null,
  msLeft: number,
  random: () => number = Math.random,
): number | null {
  if (retry >= policy.maxAttempts) return null;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const wait = Math.max(Math.floor(random() * ceiling), (retryAfterSeconds ?? 0) * 1000);
  return wait < msLeft ? wait : null;
}

/** Retry-After is either delta-seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Resolves after `ms`, or resolves false at once when the call is stopped (the caller then reports the abort). */
export function pause(ms: number, stops: Stops): Promise<boolean> {
  return new Promise((resolve) => {
    if (stopped(stops)) return resolve(false);
    const wait: Stoppable = {
      stop() {
        clearTimeout(timer);
        // Both signals' registrations: the one that stopped it has let it go, the other (the gateway's stop
        // signal, alive as long as the process) would keep it forever.
        watching.end();
        resolve(false);
      },
    };
    const timer = setTimeout(() => {
      watching.end();
      resolve(true);
    }, ms);
    const watching = watch(stops, wait);
  });
}
