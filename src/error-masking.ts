import { GraphQLError } from 'graphql';
import type { MaskError } from 'graphql-yoga';
import { redactValue, type Redact } from './redaction.js';
import { isUpstreamError, type UpstreamError } from './upstream/errors.js';

// The one place where failures become what clients see. Upstream failures get a stable code on the field
// that failed (siblings keep their data); anything unexpected is masked to a generic message so no stack,
// upstream URL or token can leak. Every error a client gets passes here (yoga masks the errors of results and
// of refused requests alike), so here too every secret is blanked from its message and extensions.

/** A write that may have taken effect where no result union could say so (mutations return OutcomeUnknown). */
const OUTCOME_UNKNOWN = 'The reward API did not confirm the outcome: the operation may have taken effect. Check before retrying.';

/** The code of an unknown outcome says what cut it short; a write cut in flight is marked by call.ts, a read has no effect. */
const UNKNOWN_OUTCOME_CODES: Partial<Record<UpstreamError['kind'], string>> = { timeout: 'UPSTREAM_TIMEOUT', aborted: 'REQUEST_ABORTED' };

function describe(error: UpstreamError): { message: string; extensions: Record<string, unknown> } {
  if (error.outcomeUnknown) {
    return {
      message: OUTCOME_UNKNOWN,
      extensions: { code: UNKNOWN_OUTCOME_CODES[error.kind] ?? 'UPSTREAM_UNAVAILABLE', retryable: false },
    };
  }
  if (error.kind === 'timeout') {
    return { message: 'The reward API did not answer in time.', extensions: { code: 'UPSTREAM_TIMEOUT' } };
  }
  if (error.kind === 'overloaded') {
    // The gateway's own queue refused the call before it went out: not the reward API's doing.
    return {
      message:
        'The gateway is at capacity right now: its calls to the reward API would wait longer than it allows (UPSTREAM_QUEUE_TIMEOUT_MS); retry shortly.',
      extensions: { code: 'GATEWAY_OVERLOADED', retryAfterSeconds: 1 },
    };
  }
  if (error.kind === 'aborted') {
    return { message: 'The request was cancelled.', extensions: { code: 'REQUEST_ABORTED' } };
  }
  if (error.kind === 'http' && (error.status === 401 || error.status === 403)) {
    return {
      message: 'The gateway could not authenticate to the reward API.',
      extensions: { code: 'UPSTREAM_UNAUTHORIZED' },
    };
  }
  if (error.kind === 'http' && error.status === 429) {
    return {
      message: 'The reward API is rate limiting the gateway; retry later.',
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: error.retryAfterSeconds ?? 1 },
    };
  }
  if (error.kind === 'http' && error.status >= 400 && error.status < 500) {
    return {
      message: `The reward API rejected the request: ${error.message}`,
      extensions: { code: 'UPSTREAM_REJECTED', upstreamStatus: error.status, upstreamCode: error.code },
    };
  }
  return { message: 'The reward API is unavailable right now; retry shortly.', extensions: { code: 'UPSTREAM_UNAVAILABLE' } };
}

export function maskError(error: unknown, genericMessage: string): Error {
  const located = error instanceof GraphQLError ? error : null;
  const original = located?.originalError ?? (located ? null : error);
  const location = { nodes: located?.nodes, source: located?.source, positions: located?.positions, path: located?.path };

  if (isUpstreamError(original)) {
    const { message, extensions } = describe(original);
    return new GraphQLError(message, { ...location, extensions });
  }
  // Errors raised on purpose (bad input, validation, authorization) are already client-safe; returned as
  // they are (graphql-js copied their message and extensions onto the located error), yoga does not log them
  // as unexpected.
  if (located && (original == null || original instanceof GraphQLError)) return located;
  return new GraphQLError(genericMessage, { ...location, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** `error` with every secret blanked from its message and extensions; `error` itself when it holds none. */
export function redactError(error: GraphQLError, redact: Redact): GraphQLError {
  const message = redact(error.message);
  const extensions = redactValue(error.extensions, redact) as GraphQLError['extensions'];
  if (message === error.message && extensions === error.extensions) return error;
  const { nodes, source, positions, path, originalError } = error;
  return new GraphQLError(message, { nodes, source, positions, path, originalError, extensions });
}

/** maskError, then every secret blanked from what the client will read. */
export function redactingMaskError(redact: Redact): MaskError {
  return (error, genericMessage) => {
    const masked = maskError(error, genericMessage);
    return masked instanceof GraphQLError ? redactError(masked, redact) : masked;
  };
}
