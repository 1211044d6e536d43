import type { IncomingMessage } from 'node:http';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Plugin } from 'graphql-yoga';

// Cross-site requests: a page on another origin must not make a visitor's browser run operations here.
// - HTTP: yoga's CSRF prevention, after authentication (a request without a key never gets this far). A
//   request must be one a browser sends only after a CORS preflight (JSON POST), or carry a header only a script
//   allowed by CORS can set: `x-graphql-yoga-csrf`, or `Authorization`, which a browser cannot send cross-site
//   without a preflight either (so urql's GET queries and graphql-sse's client pass with their key). GraphiQL
//   sends the former (graphiql-page.ts). CORS itself allows CORS_ORIGINS only (default: none).
// - Keyless development (no GATEWAY_API_KEYS, loopback only): a GET needs no such header unless the browser says
//   it comes from another site (`Sec-Fetch-Site: cross-site`, or an Origin that is neither loopback nor one of
//   CORS_ORIGINS). Tools on the machine (the graphql-http audit, curl, urql in Node) and a page served from
//   localhost, whose `EventSource` cannot set headers, get their queries and SSE subscriptions answered; a
//   foreign page's <img> or EventSource still does not. GET never runs a mutation (yoga answers 405).
// - WebSocket: browsers send no preflight for an upgrade, only their Origin (cross-site WebSocket hijacking),
//   so the upgrade request's Origin is checked (websocket.ts).

export interface CsrfOptions {
  /** No API keys configured: development on loopback. */
  keyless: boolean;
  /** CORS_ORIGINS: browser origins as trusted as the gateway's own. */
  corsOrigins: readonly string[];
}

const LOOPBACK_HOSTNAME = /^(?:(?:[a-z0-9-]+\.)*localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether a browser tells us the request comes from a page of another site. */
function crossSite(request: Request, corsOrigins: readonly string[]): boolean {
  if (request.headers.get('sec-fetch-site') === 'cross-site') return true;
  const origin = request.headers.get('origin');
  if (!origin || corsOrigins.includes(origin)) return false;
  try {
    return !LOOPBACK_HOSTNAME.test(new URL(origin).hostname);
  } catch {
    return true;
  }
}

export function useCsrfPrevention(options: CsrfOptions): Plugin {
  const yogaCsrf = useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'authorization'] });
  return {
    onRequestParse(payload) {
      const { request } = payload;
      if (options.keyless && request.method === 'GET' && !crossSite(request, options.corsOrigins)) return;
      return yogaCsrf.onRequestParse?.(payload);
    },
  };
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
