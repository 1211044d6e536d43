import { IdempotencyConflict, NotCancellable, NotFound, OutcomeUnknown, UpstreamRejected, UpstreamUnavailable } from './errors.js';
import { IdConflictError, isUpstreamError, type UpstreamError } from '../upstream/errors.js';

// Turns the upstream's refusals of a mutation into the typed errors clients select in the result union, and
// a write that may have taken effect into OutcomeUnknown. Auth failures, rate limiting and outages before
// anything was sent are not the caller's input being wrong: they stay GraphQL errors with the read graph's codes.

/** What a mutation tells its caller when its write may or may not have happened. */
export interface UnknownOutcomeAdvice {
  /** What may have happened, e.g. "the order may or may not have been created". */
  what: string;
  retrySameIdIsSafe: boolean;
  checkBefore?: string;
}

/** A create whose outcome stays unknown: its id makes the retry safe. */
export const unknownCreate: UnknownOutcomeAdvice = { what: 'the order may or may not have been created', retrySameIdIsSafe: true };

export interface RejectionContext {
  /** The caller id of a create: a conflict on it becomes IdempotencyConflict. */
  id?: string;
  /** What a 404 was about, e.g. { ref: uuid, what: 'reward' }. */
  notFound?: { ref: string; what: string };
  /** Whether an invalid-state answer means "cannot be cancelled" (cancel operations). */
  cancelling?: boolean;
  /** Every mutation whose write can meet an unknown outcome says how to handle one. */
  unknown?: UnknownOutcomeAdvice;
}

/** Why the outcome is unknown, in the gateway's words (no upstream text, so nothing secret can pass). */
function cause(error: UpstreamError): string {
  switch (error.kind) {
    case 'network':
      return 'the connection to the reward API failed after the request was sent';
    case 'timeout':
      return 'the reward API did not answer in time';
    case 'invalid_response':
      return "the reward API's answer could not be read";
    case 'aborted':
      return 'the request was cancelled while the call was under way';
    default:
      return error.status >= 500 ? `the reward API failed (${error.status})` : 'the reward API did not confirm it';
  }
}

function unknownOutcome(error: UpstreamError, advice: UnknownOutcomeAdvice, withId: boolean): OutcomeUnknown {
  const next = advice.retrySameIdIsSafe
    ? `Send the very same request again${withId ? ', with the same id' : ''}: it cannot act twice.${withId ? ' A new id could.' : ''}`
    : `Repeating it may act twice: check ${advice.checkBefore ?? 'the current state'} first.`;
  return new OutcomeUnknown(`${cap(advice.what)}: ${cause(error)}. ${next}`, advice.retrySameIdIsSafe, advice.checkBefore ?? null);
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export async function rejectionsAsData<T>(call: () => Promise<T>, context: RejectionContext = {}): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isUpstreamError(error)) throw error;
    if (error.outcomeUnknown && context.unknown) throw unknownOutcome(error, context.unknown, context.id !== undefined);
    if (error.kind !== 'http') throw error;
    const { status, code } = error;
    if (status === 401 || status === 403 || status === 429 || status >= 500) throw error;
    if (code === 'ERROR_ID_CONFLICT' && context.id !== undefined) {
      throw new IdempotencyConflict(context.id, error instanceof IdConflictError ? error.conflictingFields : []);
    }
    if (status === 404 && context.notFound) throw new NotFound(context.notFound.ref, context.notFound.what);
    if (code === 'ERROR_CAMPAIGN_INVALID_STATE' && context.cancelling) throw new NotCancellable(error.message);
    throw new UpstreamRejected(error.message, code, status, error.contacts);
  }
}

/**
 * A mutation's resolver, with an open circuit breaker answered as UpstreamUnavailable wherever in the mutation
 * it stopped a call (the read before a cancel, the replay lookup before a create, the write itself): nothing
 * was sent, so the client retries later with the same input. A write that may have gone out before the
 * circuit opened stays OutcomeUnknown.
 */
export function unavailableAsData<A extends unknown[], R>(resolve: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await resolve(...args);
    } catch (error) {
      if (isUpstreamError(error) && error.kind === 'circuit_open' && !error.outcomeUnknown) {
        throw new UpstreamUnavailable(error.retryAfterSeconds ?? 1);
      }
      throw error;
    }
  };
}
