import type { Plugin } from 'graphql-yoga';
import type { Keyring } from './api-keys.js';
import type { RateLimiter } from './rate-limit.js';
import { DEVELOPMENT_CALLER, type Caller } from './scopes.js';

// The door of /graphql over HTTP (queries, mutations, SSE subscriptions): no key or an unknown key is a 401
// before anything is parsed; a known key past its rate is a 429 with a retry hint. What the key may do is
// decided per field by scope-auth. WebSocket connections pass the same checks in graphql-ws's onConnect.

export interface Door {
  /** The caller's identity to let in, or the refusal to send. */
  admit(authorization: string | null | undefined): Promise<{ caller: Caller } | { refusal: Refusal }>;
}

export interface Refusal {
  status: 401 | 429;
  code: 'UNAUTHENTICATED' | 'RATE_LIMITED';
  message: string;
  retryAfterSeconds?: number;
}

export function createDoor(keyring: Keyring | null, limiter: RateLimiter): Door {
  return {
    async admit(authorization) {
      // No keyring: development mode, where every caller has every scope (and the server is on loopback).
      const caller = keyring ? keyring.identify(authorization) : DEVELOPMENT_CALLER;
      if (!caller) {
        return {
          refusal: {
            status: 401,
            code: 'UNAUTHENTICATED',
            message: 'Send a gateway API key: Authorization: Bearer <key>.',
          },
        };
      }
      const decision = await limiter.take(caller.name);
      if (!decision.allowed) {
        return {
          refusal: {
            status: 429,
            code: 'RATE_LIMITED',
            message: `Rate limit of API key "${caller.name}" exceeded; retry in ${decision.retryAfterSeconds}s.`,
            retryAfterSeconds: decision.retryAfterSeconds,
          },
        };
      }
      return { caller };
    },
  };
}

export function refusalResponse(refusal: Refusal, ResponseCtor: typeof Response): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (refusal.status === 401) headers['www-authenticate'] = 'Bearer';
  if (refusal.retryAfterSeconds) headers['retry-after'] = String(refusal.retryAfterSeconds);
  const extensions = { code: refusal.code, ...(refusal.retryAfterSeconds ? { retryAfterSeconds: refusal.retryAfterSeconds } : {}) };
  return new ResponseCtor(JSON.stringify({ errors: [{ message: refusal.message, extensions }] }), {
    status: refusal.status,
    headers,
  });
}

/** Whether a request asks only for the GraphiQL page: a browser GET with no operation in it. */
function isGraphiqlPage(request: Request): boolean {
  if (request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html')) return false;
  const params = new URL(request.url).searchParams;
  return !params.has('query') && !params.has('documentId') && !params.has('extensions');
}

export function useApiKeys(door: Door, options: { graphiql: boolean }): Plugin {
  return {
    async onRequest({ request, fetchAPI, endResponse }) {
      // The GraphiQL page itself carries no data; the queries it sends need a key like any other. Without
      // GraphiQL there is no page, so nothing passes unauthenticated.
      if (options.graphiql && isGraphiqlPage(request)) return;
      const outcome = await door.admit(request.headers.get('authorization'));
      if ('refusal' in outcome) endResponse(refusalResponse(outcome.refusal, fetchAPI.Response));
    },
  };
}
