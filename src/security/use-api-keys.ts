import type { Plugin } from 'graphql-yoga';
import { bearerToken, type Keyring } from './api-keys.js';
import type { Refusal } from './refusal.js';
import { refusalResponse } from './refusal.js';
import { DEVELOPMENT_CALLER, type Caller } from './scopes.js';
import { describeFailure } from '../errors/gateway-error.js';

// Authentication, first of the access pipeline: no key or an unknown key is a 401 before anything is parsed.
// Without GATEWAY_API_KEYS (development, loopback only) every caller is the development caller with every scope.
// What the key may do is decided per field by scope-auth, from the caller this finds. WebSocket connections
// are identified the same way at connection_init (websocket.ts; graphql-ws closes a refused one with 4403).

/** Why an Authorization value names no caller, for a message that says what to change. */
export function missingKey(authorization: string | null | undefined): 'missing' | 'malformed' | 'unknown' {
  if (!authorization?.trim()) return 'missing';
  return bearerToken(authorization) === null ? 'malformed' : 'unknown';
}

const refusals: Record<ReturnType<typeof missingKey>, Refusal> = {
  missing: describeFailure('UNAUTHENTICATED', { key: 'missing' }),
  malformed: describeFailure('UNAUTHENTICATED', { key: 'malformed' }),
  unknown: describeFailure('UNAUTHENTICATED', { key: 'unknown' }),
};

/** The caller a request gets when its key is unknown; the pipeline refuses it first, this is defence in depth. */
const NOBODY: Caller = { name: 'anonymous', scopes: new Set() };

export interface Authentication {
  /** The caller an Authorization value names, or null when it names no configured key. */
  identify(authorization: string | null | undefined): Caller | null;
  /** Identifies an HTTP request's caller and remembers it for the request's life; null when refused. */
  admit(request: Request): Caller | null;
  /**
   * The caller a request was admitted as, for the rate limit and the context: each request is identified once.
   * NOBODY when it was not (defence in depth: nothing runs an operation for such a request).
   */
  callerOf(request: Request): Caller;
  /** Whether the request was admitted (the GraphiQL page passes without a key, and is not). */
  admitted(request: Request): boolean;
}

/** Callers by API key (GATEWAY_API_KEYS); without keys (development, loopback only) the development caller. */
export function createAuthentication(keyring: Keyring | null): Authentication {
  // Keyed by the fetch Request, which lives as long as its operation does.
  const callers = new WeakMap<Request, Caller>();
  const identify = (authorization: string | null | undefined) => (keyring ? keyring.identify(authorization) : DEVELOPMENT_CALLER);
  return {
    identify,
    admit(request) {
      const caller = identify(request.headers.get('authorization'));
      if (caller) callers.set(request, caller);
      return caller;
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
      if (!authentication.admit(request)) {
        endResponse(refusalResponse(refusals[missingKey(request.headers.get('authorization'))], fetchAPI.Response));
      }
    },
  };
}
