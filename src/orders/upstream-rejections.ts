import { IdempotencyConflict, NotCancellable, NotFound, UpstreamRejected } from '../schema/errors.js';
import { isUpstreamError } from '../upstream/errors.js';

// Turns the upstream's refusals of a mutation into the typed errors clients select in the result union.
// Auth failures, rate limiting and outages are not the caller's input being wrong: they stay GraphQL errors
// with the read graph's codes.

export interface RejectionContext {
  /** The caller id of a create: a conflict on it becomes IdempotencyConflict. */
  id?: string;
  /** What a 404 was about, e.g. { ref: uuid, what: 'reward' }. */
  notFound?: { ref: string; what: string };
  /** Whether an invalid-state answer means "cannot be cancelled" (cancel operations). */
  cancelling?: boolean;
}

export async function rejectionsAsData<T>(call: () => Promise<T>, context: RejectionContext = {}): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isUpstreamError(error) || error.kind !== 'http') throw error;
    const { status, code } = error;
    if (status === 401 || status === 403 || status === 429 || status >= 500) throw error;
    if (code === 'ERROR_ID_CONFLICT' && context.id !== undefined) throw new IdempotencyConflict(context.id);
    if (status === 404 && context.notFound) throw new NotFound(context.notFound.ref, context.notFound.what);
    if (code === 'ERROR_CAMPAIGN_INVALID_STATE' && context.cancelling) throw new NotCancellable(error.message);
    throw new UpstreamRejected(error.message, code, status, error.contacts);
  }
}
