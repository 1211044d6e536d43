import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { tracer } from './spans.js';
import { withValuesRedacted } from './url-query.js';

// The server span of each HTTP request, continuing the caller's `traceparent` (and whatever else the configured
// propagators carry), made by the gateway's own entry (edge/http-entry.ts) rather than by an instrumentation
// patching node:http: that needed an ES module loader hook running on its own thread from start-up, and its
// per-request hooks (emitters bound to the context, every attribute the conventions list) were a measurable
// part of what tracing costs a query (bench/RESULTS.md 0m). With tracing off the API's tracer gives a span that
// does not record, and nothing else is built.
// What it records, each the HTTP semantic conventions' name: the method, the route (`/graphql`, the one route
// a GraphQL server has), the path, the query string with its GraphQL parameters and anything named like a
// credential redacted (and the path and query through the gateway's redactor: a key sent under another name
// is blanked too), the scheme, the server's and the client's addresses, and the status; an error status for
// a 5xx only (a 4xx is the client's). Never a header.

/** Query parameters whose values never reach a span: GraphQL-over-HTTP's, and names credentials go by. */
const REDACTED_QUERY_PARAMETERS = new Set([
  'query',
  'variables',
  'extensions',
  'key',
  'api_key',
  'apikey',
  'token',
  'access_token',
  'sig',
  'signature',
]);
const GRAPHQL_PATH = '/graphql';

/** The Host header's name and port (the port the connection came in on when the header names none). */
function serverOf(req: IncomingMessage): { address?: string; port?: number } {
  const host = req.headers.host;
  const local = req.socket.localPort;
  if (!host) return local === undefined ? {} : { port: local };
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1;
  const colon = host.indexOf(':', bracket + 1);
  const address = colon < 0 ? host : host.slice(0, colon);
  const port = colon < 0 ? local : Number(host.slice(colon + 1));
  return port === undefined || !Number.isInteger(port) ? { address } : { address, port };
}

/**
 * `handle` inside the server span of `req`, ended when the response closes; as is when tracing is off or the
 * trace is not sampled. `path` is the request target's path, `query` what follows its `?` (or undefined);
 * `redact` is the gateway's redactor.
 */
export function inServerSpan(
  req: IncomingMessage,
  res: ServerResponse,
  target: { path: string; query: string | undefined },
  redact: (text: string) => string,
  handle: () => void,
): void {
  const { path, query } = target;
  const method = req.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const route = path === GRAPHQL_PATH ? GRAPHQL_PATH : undefined;
  const span = tracer.startSpan(route ? `${method} ${route}` : method, { kind: SpanKind.SERVER }, parent);
  if (!span.isRecording()) return context.with(trace.setSpan(parent, span), handle);
  const server = serverOf(req);
  const attributes: Attributes = {
    'http.request.method': method,
    'url.path': redact(path),
    'url.scheme': 'http',
    'network.protocol.version': req.httpVersion,
  };
  if (route) attributes['http.route'] = route;
  if (query !== undefined) attributes['url.query'] = redact(withValuesRedacted(query, REDACTED_QUERY_PARAMETERS));
  if (server.address !== undefined) attributes['server.address'] = server.address;
  if (server.port !== undefined) attributes['server.port'] = server.port;
  if (req.socket.remoteAddress) attributes['client.address'] = req.socket.remoteAddress;
  span.setAttributes(attributes);
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) {
      span.setAttribute('error.type', String(res.statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  context.with(trace.setSpan(parent, span), handle);
}
