// How each kind of failed attempt becomes an UpstreamError. Messages are short, name the route pattern (never
// the concrete URL, whose query could carry secrets) and never include the token: text that comes from the
// upstream goes through `redact` first, and no underlying error is attached as `cause`, so util.inspect of an
// UpstreamError cannot reach socket or request internals.

import type { Redact } from '../redaction/redaction.js';
import { UpstreamError, type UpstreamErrorDetails } from './errors.js';
import { rejectedContacts } from './rejected-contacts.js';

/** An upstream error's text as clients may see it: every secret blanked (`redact`), a whole HTML page kept out. */
export function upstreamTextRedactor(redact: Redact): Redact {
  // Cut first (bounding the scan), redact, cut again: redaction happens on the whole kept text so a token
  // straddling the cut is still caught by its prefix.
  return (text) => redact(text.slice(0, 400)).slice(0, 300);
}

/**
 * What an upstream code may be to pass through: codes are matched by clients and written to logs and
 * metrics labels, so anything else (free text, an echoed credential) becomes UPSTREAM_ERROR.
 */
const CODE_SHAPE = /^[A-Z0-9_]{1,64}$/;
export const UNRECOGNISED_CODE = 'UPSTREAM_ERROR';

export function sanitiseCode(code: string | null): string | null {
  if (code === null) return null;
  return CODE_SHAPE.test(code) ? code : UNRECOGNISED_CODE;
}

/** A copy with some details changed; UpstreamError is immutable so retries and recovery make new ones. */
export function amend(error: UpstreamError, patch: Partial<UpstreamErrorDetails>, message = error.message): UpstreamError {
  return new UpstreamError(message, {
    kind: error.kind,
    route: error.route,
    status: error.status,
    code: error.code,
    retryable: error.retryable,
    attempts: error.attempts,
    retryAfterSeconds: error.retryAfterSeconds,
    upstreamMessage: error.upstreamMessage,
    outcomeUnknown: error.outcomeUnknown,
    contacts: error.contacts,
    inFlight: error.inFlight,
    ...patch,
  });
}

interface ErrorEnvelope {
  code: string | null;
  message: string | null;
}

/**
 * Reads what an error body says, whatever its shape: the documented `{"error": {code, message}}`, the
 * recorded `{"status": 401, "text": "Unauthorized"}`, a bare `{code, message}`, or nothing usable (HTML).
 */
function readEnvelope(json: unknown): ErrorEnvelope {
  if (typeof json !== 'object' || json === null) return { code: null, message: null };
  const o = json as Record<string, unknown>;
  const inner = typeof o.error === 'object' && o.error !== null ? (o.error as Record<string, unknown>) : o;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  return {
    code: str(inner.code),
    message: str(inner.message) ?? str(o.text) ?? str(inner.name) ?? (typeof o.error === 'string' ? str(o.error) : null),
  };
}

// When the body names no code, these statuses still have an unambiguous one; callers switch on codes.
const CODE_BY_STATUS: Record<number, string> = {
  401: 'ERROR_UNAUTHORIZED',
  429: 'ERROR_TOO_MANY_REQUESTS',
};

function describe(status: number, code: string | null): string {
  if (status === 401 || status === 403) return `the upstream refused the credentials (${status})`;
  if (status === 429) return 'rate limited by the upstream (429)';
  if (status >= 500) return `the upstream failed (${status})`;
  return `the upstream rejected the request (${status}${code ? ` ${code}` : ''})`;
}

export function httpFailure(route: string, status: number, json: unknown, retryAfterSeconds: number | null, redact: Redact): UpstreamError {
  const envelope = readEnvelope(json);
  const code = sanitiseCode(envelope.code) ?? CODE_BY_STATUS[status] ?? null;
  const upstreamMessage = envelope.message === null ? null : redact(envelope.message);
  const message = `${route}: ${describe(status, code)}${upstreamMessage ? `: ${upstreamMessage}` : ''}`;
  return new UpstreamError(message, {
    kind: 'http',
    route,
    status,
    code,
    upstreamMessage,
    contacts: status === 422 ? rejectedContacts(json, redact) : null,
    retryable: status === 429 || status >= 500,
    retryAfterSeconds,
  });
}

/** Codes like ECONNRESET or UND_ERR_SOCKET help an operator and carry nothing secret; free text might. */
function errorCode(cause: unknown): string | null {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : null;
}

export function networkFailure(route: string, cause: unknown): UpstreamError {
  const code = errorCode(cause);
  return new UpstreamError(`${route}: connection to the upstream failed${code ? ` (${code})` : ''}`, {
    kind: 'network',
    route,
    retryable: true,
  });
}

export function timeoutFailure(route: string, afterMs: number): UpstreamError {
  return new UpstreamError(`${route}: no complete answer from the upstream within ${afterMs} ms`, {
    kind: 'timeout',
    route,
    retryable: true,
  });
}

/** `inFlight`: the request had gone out already, so it may have been processed (see UpstreamError.inFlight). */
export function abortedFailure(route: string, inFlight = false): UpstreamError {
  const message = inFlight ? `${route}: cancelled while the upstream was handling it` : `${route}: cancelled by the caller`;
  return new UpstreamError(message, { kind: 'aborted', route, retryable: false, inFlight });
}

/** The gateway's own queue refused the request: it never went out. */
export function overloadedFailure(route: string, reason: 'full' | 'timeout' | 'backlog', waitMs: number, expectedWaitMs = 0): UpstreamError {
  const why =
    reason === 'full'
      ? 'the queue for upstream slots is full'
      : reason === 'backlog'
        ? `its queue would take about ${expectedWaitMs} ms to reach it, longer than the ${waitMs} ms it may wait`
        : `no upstream slot freed within ${waitMs} ms`;
  return new UpstreamError(`${route}: the gateway is at capacity; ${why}`, {
    kind: 'overloaded',
    route,
    retryable: true,
  });
}

export function invalidResponseFailure(route: string, detail: string): UpstreamError {
  return new UpstreamError(`${route}: the upstream's answer could not be read (${detail})`, {
    kind: 'invalid_response',
    route,
    status: 200,
    retryable: false,
  });
}

/** The budget had no token for the attempt in time: it never went out. */
export function busyFailure(route: string, retryAfterSeconds: number): UpstreamError {
  return new UpstreamError(`${route}: the upstream budget has no token free in time; nothing was sent`, {
    kind: 'busy',
    route,
    retryable: true,
    retryAfterSeconds,
  });
}

/** The circuit is open: the attempt never went out. */
export function circuitOpenFailure(route: string, retryAfterSeconds: number): UpstreamError {
  return new UpstreamError(`${route}: the upstream is failing and the circuit breaker is open; nothing was sent`, {
    kind: 'circuit_open',
    route,
    retryable: true,
    retryAfterSeconds,
  });
}
