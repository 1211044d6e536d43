import { isUpstreamError, type UpstreamError, type UpstreamErrorKind } from '../upstream/errors.js';

// Which failures of an upstream read the cache may answer with what it saw before (stale-if-error), by the
// kind of failure. A Record over every kind, so a new kind cannot be added without deciding it here.

const BY_KIND: Record<UpstreamErrorKind, (error: UpstreamError) => boolean> = {
  // 429 and 5xx (the ones a retry could cure): the upstream is overloaded or failing, not saying no.
  http: (error) => error.retryable,
  network: () => true,
  timeout: () => true,
  // Nothing was sent: the gateway's own queue, the upstream budget, or the open circuit breaker refused the
  // read, all because the upstream is (or is kept from being) overloaded or failing.
  overloaded: () => true,
  busy: () => true,
  circuit_open: () => true,
  // The caller went away: nobody is waiting for an answer.
  aborted: () => false,
  // The upstream answered, and what it said is not something an older answer should hide.
  invalid_response: () => false,
};

/** Whether a read that failed with `error` may be answered from an expired cache entry. */
export function mayAnswerStale(error: unknown): boolean {
  return isUpstreamError(error) && BY_KIND[error.kind](error);
}
