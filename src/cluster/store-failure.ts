// A command the shared store (Redis) could not answer: none within REDIS_COMMAND_TIMEOUT_MS, or no server could take
// it (connection lost, a failover under way). redis.ts's guard marks the error where the command fails, and
// error-masking.ts answers a marked error as STORE_UNAVAILABLE, with what to do, instead of a masked internal
// error. The store cannot tell a read from a write, nor whether an unanswered command was applied: the area that
// wrote marks its failure as an unconfirmed write, so the client is told to read the change back, not to repeat it.

const STORE_FAILURE = Symbol('reward-gateway.store-failure');
const UNCONFIRMED_WRITE = Symbol('reward-gateway.unconfirmed-write');

type Marked = Error & { [STORE_FAILURE]?: true; [UNCONFIRMED_WRITE]?: true };

export function markStoreFailure(error: Error): void {
  (error as Marked)[STORE_FAILURE] = true;
}

export function isStoreFailure(error: unknown): error is Error {
  return error instanceof Error && (error as Marked)[STORE_FAILURE] === true;
}

/**
 * For a write's `catch`, to rethrow: when the store failed during the write (which may have been applied), a new
 * error saying so, its cause the store's. Not the store's error marked: ioredis rejects every command waiting on a
 * lost connection with one error object, reads of other requests among them.
 */
export function unconfirmedWrite(error: unknown): unknown {
  if (!isStoreFailure(error)) return error;
  const unconfirmed = new Error('the shared store stopped answering during a write', { cause: error }) as Marked;
  unconfirmed[STORE_FAILURE] = true;
  unconfirmed[UNCONFIRMED_WRITE] = true;
  return unconfirmed;
}

export function isUnconfirmedWrite(error: unknown): boolean {
  return isStoreFailure(error) && (error as Marked)[UNCONFIRMED_WRITE] === true;
}
