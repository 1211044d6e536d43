// Every failure of an upstream call surfaces as one UpstreamError. The schema maps `kind` (and for `http`
// the status) to stable GraphQL error codes; nothing in here ever holds the token, a header or a URL with
// credentials.

import type { ContactResult } from './types.js';

export type UpstreamErrorKind =
  /** The upstream answered with a non-200 status. */
  | 'http'
  /** The connection failed or was reset before a complete answer arrived. */
  | 'network'
  /** No complete answer within the per-call timeout. */
  | 'timeout'
  /** The caller's signal aborted the call. */
  | 'aborted'
  /** The gateway's bulkhead refused the request (queue full, or no slot freed in time); nothing was sent. */
  | 'overloaded'
  /** A 200 whose body could not be read as the expected shape. */
  | 'invalid_response'
  /** The upstream budget had no token for this read in time (UPSTREAM_QUEUE_TIMEOUT_MS); nothing was sent. */
  | 'busy'
  /** The circuit breaker is open after repeated upstream failures; nothing was sent. */
  | 'circuit_open';

export interface UpstreamErrorDetails {
  kind: UpstreamErrorKind;
  /** Route pattern, e.g. "POST /campaign". */
  route: string;
  /** HTTP status, 0 when no response arrived. */
  status?: number;
  /** Upstream error code such as ERROR_CAMPAIGN_INVALID_BRAND, when the body had one. */
  code?: string | null;
  /**
   * Repeating the same call later may succeed and is safe: transient failures (network, timeout, 429, 5xx,
   * overload) of reads and of creates carrying their idempotent id. False for rejections, aborts, unreadable
   * answers, and an unclear failure of a non-idempotent call (a resend might have gone out).
   */
  retryable: boolean;
  attempts?: number;
  /** Seconds from a Retry-After header, when the upstream sent one; for `busy` and `circuit_open`, the gateway's own. */
  retryAfterSeconds?: number | null;
  /** The upstream's own error text (`error.message`), token redacted, for errors shown as UpstreamRejected. */
  upstreamMessage?: string | null;
  /**
   * A write (non-GET) that may have taken effect although no readable success came back: reset or timeout
   * after sending, 5xx, or a 200 that could not be read. Clients must be told so, never "retry shortly".
   */
  outcomeUnknown?: boolean;
  /** A refused create's per-contact results (a 422 with a partial campaign), when the body had them. */
  contacts?: ContactResult[] | null;
  /**
   * `aborted` only: the request had already gone out when it was aborted (e.g. at the shutdown deadline), so
   * the upstream may have processed it — as unclear an outcome as a timeout.
   */
  inFlight?: boolean;
}

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly route: string;
  readonly status: number;
  readonly code: string | null;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly retryAfterSeconds: number | null;
  readonly upstreamMessage: string | null;
  readonly outcomeUnknown: boolean;
  readonly contacts: ContactResult[] | null;
  readonly inFlight: boolean;

  constructor(message: string, details: UpstreamErrorDetails) {
    super(message);
    this.name = 'UpstreamError';
    this.kind = details.kind;
    this.route = details.route;
    this.status = details.status ?? 0;
    this.code = details.code ?? null;
    this.retryable = details.retryable;
    this.attempts = details.attempts ?? 1;
    this.retryAfterSeconds = details.retryAfterSeconds ?? null;
    this.upstreamMessage = details.upstreamMessage ?? null;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
    this.contacts = details.contacts ?? null;
    this.inFlight = details.inFlight ?? false;
  }
}

export function isUpstreamError(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError;
}

/**
 * Names of the create inputs that can disagree with a found order. They are the GraphQL input field names, so
 * a client can see what to change; `deliveryType` also covers "the id names an order of another kind".
 */
export type OrderField =
  | 'deliveryType'
  | 'priceInCents'
  | 'reward'
  | 'brand'
  | 'contacts'
  | 'linkCount'
  | 'expiry'
  | 'subject'
  | 'message'
  | 'giftTemplate';

/** The caller id names a different order (or a top-up): the answer is IdempotencyConflict. */
export class IdConflictError extends UpstreamError {
  constructor(
    route: string,
    /** Echoed fields that differ; empty when the difference lies in something the upstream does not echo. */
    readonly conflictingFields: OrderField[],
    attempts: number,
  ) {
    super(`${route}: the id was already used for a different request`, {
      kind: 'http',
      route,
      status: 422,
      code: 'ERROR_ID_CONFLICT',
      retryable: false,
      attempts,
    });
    this.name = 'IdConflictError';
  }
}
