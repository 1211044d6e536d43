import { GraphQLError } from 'graphql';
import type { MaskError } from 'graphql-yoga';
import { isStoreFailure, isUnconfirmedWrite } from '../cluster/store-failure.js';
import { gatewayError, type RaiseOptions } from '../errors/gateway-error.js';
import { redactValue, type Redact } from '../redaction/redaction.js';
import { isUpstreamError, type UpstreamError } from '../upstream/errors.js';

// The one place where failures become what clients see. Upstream failures, and the shared store's in cluster
// mode, get a stable code on the field that failed (siblings keep their data); anything unexpected is masked to
// a generic message so no stack, upstream URL or token can leak. Every error a client gets passes here (yoga
// masks the errors of results and of refused requests alike), so here too every secret is blanked from its
// message and extensions.

/** The code of an unknown outcome says what cut it short; a write cut in flight is marked by call.ts, a read has no effect. */
function unknownOutcomeCode(error: UpstreamError): 'UPSTREAM_TIMEOUT' | 'REQUEST_ABORTED' | 'UPSTREAM_UNAVAILABLE' {
  if (error.kind === 'timeout') return 'UPSTREAM_TIMEOUT';
  if (error.kind === 'aborted') return 'REQUEST_ABORTED';
  return 'UPSTREAM_UNAVAILABLE';
}

/** The catalogue's error for an upstream failure, where the original failed. */
function describe(error: UpstreamError, at: RaiseOptions['at']): GraphQLError {
  // A write that may have taken effect where no result union could say so (mutations return OutcomeUnknown).
  if (error.outcomeUnknown) return gatewayError(unknownOutcomeCode(error), { outcomeUnknown: true }, { at });
  if (error.kind === 'timeout') return gatewayError('UPSTREAM_TIMEOUT', {}, { at });
  // The gateway's own queue refused the call before it went out: not the reward API's doing.
  if (error.kind === 'overloaded') return gatewayError('GATEWAY_OVERLOADED', {}, { at });
  if (error.kind === 'aborted') return gatewayError('REQUEST_ABORTED', {}, { at });
  // The gateway's budget or breaker kept the call from going out.
  if (error.kind === 'busy') return gatewayError('UPSTREAM_BUSY', { retryAfterSeconds: error.retryAfterSeconds ?? 1 }, { at });
  if (error.kind === 'circuit_open') {
    return gatewayError('UPSTREAM_UNAVAILABLE', { circuitOpenSeconds: error.retryAfterSeconds ?? 1 }, { at });
  }
  if (error.kind === 'http' && (error.status === 401 || error.status === 403)) return gatewayError('UPSTREAM_UNAUTHORIZED', {}, { at });
  if (error.kind === 'http' && error.status === 429) {
    // The reward API limits the gateway, on this field only: the answer keeps its other data and its 200.
    return gatewayError('RATE_LIMITED', { by: 'upstream', retryAfterSeconds: error.retryAfterSeconds ?? 1 }, { at, onField: true });
  }
  if (error.kind === 'http' && error.status >= 400 && error.status < 500) {
    return gatewayError('UPSTREAM_REJECTED', { upstreamMessage: error.message, upstreamStatus: error.status, upstreamCode: error.code }, { at });
  }
  return gatewayError('UPSTREAM_UNAVAILABLE', {}, { at });
}

/** Every failure as the client may see it. yoga's generic message is not used: the catalogue's says the same. */
export function maskError(error: unknown): Error {
  const located = error instanceof GraphQLError ? error : null;
  const original = located?.originalError ?? (located ? null : error);
  const location = { nodes: located?.nodes, source: located?.source, positions: located?.positions, path: located?.path };

  if (isUpstreamError(original)) return describe(original, location);
  // Redis hung or gone in cluster mode: what to do, never the driver's words (which may name a key or a value).
  if (isStoreFailure(original))
    return gatewayError('STORE_UNAVAILABLE', isUnconfirmedWrite(original) ? { outcomeUnknown: true } : {}, { at: location });
  // Errors raised on purpose (bad input, validation, authorization) are already client-safe; returned as
  // they are (graphql-js copied their message and extensions onto the located error), yoga does not log them
  // as unexpected.
  if (located && (original == null || original instanceof GraphQLError)) return located;
  return gatewayError('INTERNAL_SERVER_ERROR', {}, { at: location });
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
  return (error) => {
    const masked = maskError(error);
    return masked instanceof GraphQLError ? redactError(masked, redact) : masked;
  };
}
