import type { IncomingMessage } from 'node:http';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Plugin } from 'graphql-yoga';

// Cross-site requests: a page on another origin must not make a visitor's browser run operations here.
// - HTTP: yoga's CSRF prevention, after authentication (a request without a key never gets this far). A
//   request must be one a browser sends only after a CORS preflight (JSON POST), or carry a header only a script
//   allowed by CORS can set: `x-graphql-yoga-csrf`, or `Authorization`, which a browser cannot send cross-site
//   without a preflight either. GraphiQL sends the former (graphiql-page.ts). CORS itself allows CORS_ORIGINS
//   only (default: none).
// - WebSocket: browsers send no preflight for an upgrade, only their Origin (cross-site WebSocket hijacking),
//   so the upgrade request's Origin is checked (websocket.ts).

export function useCsrfPrevention(): Plugin {
  return useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'authorization'] });
}

/** Non-browser clients send no Origin; a browser's must be the gateway's own or one of CORS_ORIGINS. */
export function originAllowed(request: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (!origin) return true;
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
