import type { Plugin } from 'graphql-yoga';
import { describeFailure, errorBody, type DescribedFailure } from '../errors/gateway-error.js';

// The bound on what a request body may hold, checked on its headers before a byte of it is read: a POST must
// say how long it is (Content-Length), and no longer than MAX_BODY_BYTES (default 100,000). Node's HTTP parser
// never reads past Content-Length, so nothing else needs counting: yoga's own `maxRequestBodySize` would pipe
// every body through a counting stream (about 3% of a small query's CPU) to enforce what cannot happen any
// more, and is turned off. WebSocket messages have their own bound (WS_MAX_PAYLOAD_BYTES, websocket.ts).

export interface BodyLimit {
  /** MAX_BODY_BYTES */
  maxBytes: number;
}

/** Why a request's body is refused by its headers, or null: /graphql's plugin below and /mcp (mcp/endpoint.ts) alike. */
export function bodyLimitFailure(method: string | undefined, contentLength: string | null | undefined, maxBytes: number): DescribedFailure | null {
  if (method !== 'POST') return null;
  if (contentLength === null || contentLength === undefined) {
    return describeFailure('BAD_REQUEST', { status: 411, problem: 'POST bodies need a Content-Length header.' });
  }
  if (Number(contentLength) > maxBytes) {
    return describeFailure('BAD_REQUEST', { status: 413, problem: `Request body too large: at most ${maxBytes} bytes (MAX_BODY_BYTES).` });
  }
  return null;
}

export function useBodyLimit({ maxBytes }: BodyLimit): Plugin {
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      const failure = bodyLimitFailure(request.method, request.headers.get('content-length'), maxBytes);
      if (!failure) return;
      endResponse(
        new fetchAPI.Response(JSON.stringify(errorBody(failure)), {
          status: failure.status,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...failure.headers },
        }),
      );
    },
  };
}
