import type { Plugin } from 'graphql-yoga';
import type { Keyring } from './api-keys.js';
import type { Refusal } from './refusal.js';
import { refusalResponse } from './refusal.js';
import { DEVELOPMENT_CALLER, type Caller } from './scopes.js';

// Authentication, first of the access pipeline: no key or an unknown key is a 401 before anything is parsed.
// Without GATEWAY_API_KEYS (development, loopback only) every caller is the development caller with every scope.
// What the key may do is decided per field by scope-auth, from the caller this finds. WebSocket connections
// are identified the same way at connection_init (websocket.ts; graphql-ws closes a refused one with 4403).

export const UNAUTHENTICATED: Refusal = {
  status: 401,
  code: 'UNAUTHENTICATED',
  message: 'Send a gateway API key: Authorization: Bearer <key>.',
};

/** The caller a request gets when its key is unknown; the pipeline refuses it first, this is defence in depth. */
const NOBODY: Caller = { name: 'anonymous', scopes: new Set() };

export interface Authentication {
  /** The caller an Authorization value names, or null when it names no configured key. */
  identify(authorization: string | null | undefined): Caller | null;
  /**
   * The caller useApiKeys let this request in as, for the rate limit and the context: each request is
   * identified once.
   */
  callerOf(request: Request): Caller;
  /** Whether useApiKeys let this request in (the GraphiQL page passes without a key). */
  admitted(request: Request): boolean;
}

export interface ApiKeysPlugin extends Authentication {
  plugin: Plugin;
}

/** Whether a request asks only for the GraphiQL page: a browser GET with no operation in it. */
function isGraphiqlPage(request: Request): boolean {
  if (request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html')) return false;
  const params = new URL(request.url).searchParams;
  return !params.has('query') && !params.has('documentId') && !params.has('extensions');
}

export function useApiKeys(keyring: Keyring | null, options: { graphiql: boolean }): ApiKeysPlugin {
  // Keyed by the fetch Request, which lives as long as its operation does.
  const callers = new WeakMap<Request, Caller>();
  const identify = (authorization: string | null | undefined) => (keyring ? keyring.identify(authorization) : DEVELOPMENT_CALLER);
  return {
    identify,
    callerOf: (request) => callers.get(request) ?? NOBODY,
    admitted: (request) => callers.has(request),
    plugin: {
      onRequest({ request, fetchAPI, endResponse }) {
        // The GraphiQL page itself carries no data; the queries it sends need a key like any other. Without
        // GraphiQL there is no page, so nothing passes unauthenticated.
        if (options.graphiql && isGraphiqlPage(request)) return;
        const caller = identify(request.headers.get('authorization'));
        if (caller) callers.set(request, caller);
        else endResponse(refusalResponse(UNAUTHENTICATED, fetchAPI.Response));
      },
    },
  };
}
