import type { Plugin } from 'graphql-yoga';
import { bearerToken, isPlaceholderBearer, type Keyring } from './api-keys.js';
import type { Refusal } from './refusal.js';
import { refusalResponse } from './refusal.js';
import { DEVELOPMENT_CALLER, type Caller } from './scopes.js';
import type { Admission, TokenCallers } from './token-callers.js';
import { looksLikeJwt, MAX_TOKEN_BYTES } from '../identity/jwt-verifier.js';
import { describeFailure } from '../errors/gateway-error.js';

// Authentication, first of the access pipeline: no key or an unknown key is a 401 before anything is parsed.
// Without GATEWAY_API_KEYS (development, loopback only) every caller is the development caller with every scope.
// What the key may do is decided per field by scope-auth, from the caller this finds. WebSocket connections
// are identified the same way at connection_init (edge/ws-admission.ts, which closes a refused one with 4403).
// With an OpenID issuer configured (AUTH_JWT_*), a bearer value that is a JWT is verified as an access token
// (token-callers.ts; a refusal is INVALID_TOKEN naming why), anything else is looked up as a key. An
// Authorization header over 8 KB is refused before it is parsed. `Bearer undefined` / `null` / empty is refused in
// every mode, keyless development included, so the client bug shows before the client meets a gateway with keys.

/** Why an Authorization value names no caller, for a message that says what to change. */
export function missingKey(authorization: string | null | undefined): 'missing' | 'malformed' | 'unknown' | 'placeholder' {
  if (!authorization?.trim()) return 'missing';
  if (isPlaceholderBearer(authorization)) return 'placeholder';
  return bearerToken(authorization) === null ? 'malformed' : 'unknown';
}

const refusals: Record<ReturnType<typeof missingKey>, Refusal> = {
  missing: describeFailure('UNAUTHENTICATED', { key: 'missing' }),
  malformed: describeFailure('UNAUTHENTICATED', { key: 'malformed' }),
  unknown: describeFailure('UNAUTHENTICATED', { key: 'unknown' }),
  placeholder: describeFailure('UNAUTHENTICATED', { key: 'placeholder' }),
};

/** The caller a request gets when its key is unknown; the pipeline refuses it first, this is defence in depth. */
const NOBODY: Caller = { name: 'anonymous', scopes: new Set() };

export interface Authentication {
  /** The caller an Authorization value names, or why it is refused. At once (no promise) for an API key. */
  authenticate(authorization: string | null | undefined): Admission | Promise<Admission>;
  /** The caller an Authorization value names, or null when it names no configured key or valid token. */
  identify(authorization: string | null | undefined): Caller | null | Promise<Caller | null>;
  /** Identifies an HTTP request's caller and remembers it for the request's life. */
  admit(request: Request): Admission | Promise<Admission>;
  /**
   * The caller a request was admitted as, for the rate limit and the context: each request is identified once.
   * NOBODY when it was not (defence in depth: nothing runs an operation for such a request).
   */
  callerOf(request: Request): Caller;
  /** Whether the request was admitted (the GraphiQL page passes without a key, and is not). */
  admitted(request: Request): boolean;
}

/** With token issuers and no keys, whatever is not a token is told the gateway takes tokens only. */
const TOKENS_ONLY: Admission = { refusal: describeFailure('UNAUTHENTICATED', { key: 'tokens-only' }) };
const PLACEHOLDER: Admission = { refusal: refusals.placeholder };
const TOO_LARGE: Admission = { refusal: describeFailure('INVALID_TOKEN', { problem: 'too-large' }) };

/**
 * Callers by API key (GATEWAY_API_KEYS) and by access token (AUTH_JWT_*); with neither (development, loopback
 * only) the development caller.
 */
export function createAuthentication(keyring: Keyring | null, tokens: TokenCallers | null = null): Authentication {
  // Keyed by the fetch Request, which lives as long as its operation does.
  const callers = new WeakMap<Request, Caller>();
  const authenticate = (authorization: string | null | undefined): Admission | Promise<Admission> => {
    if (isPlaceholderBearer(authorization)) return PLACEHOLDER;
    if (!keyring && !tokens) return { caller: DEVELOPMENT_CALLER };
    if (authorization && authorization.length > MAX_TOKEN_BYTES) return TOO_LARGE;
    const bearer = bearerToken(authorization);
    if (tokens && bearer !== null && looksLikeJwt(bearer)) return tokens.admit(bearer);
    if (!keyring) return TOKENS_ONLY;
    const caller = keyring.identify(authorization);
    return caller ? { caller } : { refusal: refusals[missingKey(authorization)] };
  };
  const callerOrNull = (admission: Admission) => ('caller' in admission ? admission.caller : null);
  return {
    authenticate,
    identify(authorization) {
      const admission = authenticate(authorization);
      return admission instanceof Promise ? admission.then(callerOrNull) : callerOrNull(admission);
    },
    admit(request) {
      const remember = (admission: Admission) => {
        if ('caller' in admission) callers.set(request, admission.caller);
        return admission;
      };
      const admission = authenticate(request.headers.get('authorization'));
      return admission instanceof Promise ? admission.then(remember) : remember(admission);
    },
    callerOf: (request) => callers.get(request) ?? NOBODY,
    admitted: (request) => callers.has(request),
  };
}

/** Whether a request asks only for the GraphiQL page: a browser GET with no operation in it. */
function isGraphiqlPage(request: Request): boolean {
  if (request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html')) return false;
  const params = new URL(request.url).searchParams;
  return !params.has('query') && !params.has('documentId') && !params.has('extensions');
}

export function useApiKeys(authentication: Authentication, options: { graphiql: boolean }): Plugin {
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      // The GraphiQL page itself carries no data; the queries it sends need a key like any other. Without
      // GraphiQL there is no page, so nothing passes unauthenticated.
      if (options.graphiql && isGraphiqlPage(request)) return;
      const refuse = (admission: Admission) => {
        if ('refusal' in admission) endResponse(refusalResponse(admission.refusal, fetchAPI.Response));
      };
      const admission = authentication.admit(request);
      if (admission instanceof Promise) return admission.then(refuse);
      refuse(admission);
    },
  };
}
