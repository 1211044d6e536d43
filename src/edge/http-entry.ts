import type { IncomingMessage, ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import { describeFailure, errorBody, type DescribedFailure } from '../errors/gateway-error.js';
import { graphiqlEnabled, type ProcessSettings } from '../ops/config.js';
import type { Drain } from '../ops/drain.js';
import type { Logger } from '../ops/logger.js';
import type { GatewayMetrics } from '../ops/metrics.js';
import type { Redact } from '../redaction/redaction.js';
import type { SecuritySettings } from '../security/config.js';
import { inServerSpan } from '../telemetry/server-span.js';
import { answerRefusal, refuseRequestTarget } from './request-target.js';

// What a request meets on the node:http server before yoga. Here, not in yoga plugins:
// - a malformed request target or Host, before anything builds a URL from them (yoga would);
// - the Host rule (DNS rebinding), which covers the probes and /metrics as much as /graphql;
// - /health and /metrics, answered with no fetch Request or Response made for them, and never behind a plugin
//   (yoga's own health check answers an empty body, not the documented `{"status":"ok"}`);
// - the draining state's `Connection: close`, and the SSE responses stop() drops.
// Everything else, /ready included, is yoga's (gateway-yoga.ts).

export interface HttpEntryOptions {
  config: Pick<ProcessSettings, 'GRAPHIQL' | 'NODE_ENV'> & Pick<SecuritySettings, 'CORS_ORIGINS'>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any yoga instance: see websocket.ts
  yoga: YogaServerInstance<any, any>;
  drain: Drain;
  /** The Host rule (security.ts). */
  hostAllowed(host: string | undefined): boolean;
  metrics: GatewayMetrics;
  redact: Redact;
  logger: Logger;
  /** Served by path after the Host rule, beside yoga rather than through it (/mcp and its metadata). */
  routes?: Readonly<Record<string, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>>>;
}

export interface HttpEntry {
  /** The node:http request listener. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Drops every open event stream (SSE subscriptions, MCP sessions' streams), so its client reconnects rather than takes it as finished. */
  dropEventStreams(): void;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** A request refusal of the catalogue, answered outside yoga. */
function refuse(res: ServerResponse, failure: DescribedFailure): void {
  res.writeHead(failure.status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...failure.headers });
  res.end(JSON.stringify(errorBody(failure)));
}

/** A route of `routes`; one that throws answers the catalogue's 500 and is logged, as yoga's would be. */
async function serveRoute(
  route: NonNullable<HttpEntryOptions['routes']>[string],
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  try {
    await route(req, res);
  } catch (error) {
    logger.error({ err: error, path: req.url }, 'route failed');
    if (!res.headersSent) refuse(res, describeFailure('INTERNAL_SERVER_ERROR'));
    else res.destroy();
  }
}

/** `/` serves nothing itself: browsers go on to GraphiQL (when served), other clients hear where to go. */
function pointToGraphql(req: IncomingMessage, res: ServerResponse, graphiql: boolean): void {
  if (graphiql && req.method === 'GET' && req.headers.accept?.includes('text/html')) {
    res.writeHead(302, { location: '/graphql', 'cache-control': 'no-store' });
    res.end();
    return;
  }
  json(res, 200, {
    message: 'This is reward-gateway: send GraphQL to /graphql (POST, or GET; WebSocket and SSE for subscriptions).',
    graphql: '/graphql',
  });
}

/** A CORS preflight from a browser origin CORS_ORIGINS does not list. */
function preflightRefused(req: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = req.headers.origin;
  return req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined && !allowed.includes(origin);
}

/**
 * Whether a request asks for an event stream (an SSE subscription or live query, an MCP session's stream): its
 * Accept names text/event-stream first. MCP clients accept `application/json, text/event-stream` on every POST
 * and are answered JSON: those are requests like any other, drained at a stop rather than dropped.
 */
export function asksForEventStream(accept: string | undefined): boolean {
  return accept?.split(',')[0]?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

const UNTRACED_PATHS = /^\/(health|ready|metrics)(?:\/|$)/;

export function createHttpEntry({ config, yoga, drain, hostAllowed, metrics, redact, logger, routes = {} }: HttpEntryOptions): HttpEntry {
  const graphiql = graphiqlEnabled(config);
  const corsOrigins = config.CORS_ORIGINS ?? [];
  const eventStreams = new Set<ServerResponse>();
  /** Everything after the request target was found sound, in the request's server span when it is traced. */
  function serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    if (!hostAllowed(req.headers.host)) return refuse(res, describeFailure('HOST_NOT_ALLOWED'));
    if (path === '/') return pointToGraphql(req, res, graphiql);
    if (path === '/health') return json(res, 200, { status: 'ok' });
    if (path === '/metrics') return void metrics.respond(res, redact);
    if (asksForEventStream(req.headers.accept)) {
      eventStreams.add(res);
      res.once('close', () => eventStreams.delete(res));
    }
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (route) return void serveRoute(route, req, res, logger);
    // yoga answers a refused preflight with no CORS headers and nothing to read: this names the variable.
    if (preflightRefused(req, corsOrigins)) return refuse(res, describeFailure('CORS_ORIGIN_NOT_ALLOWED'));
    void yoga(req, res);
  }

  return {
    handle(req, res) {
      drain.track(res);
      const malformed = refuseRequestTarget(req);
      if (malformed) {
        // Scanners send these by the thousand: debug, and neither the target nor the Host (they are the sender's text).
        logger.debug({ code: malformed.code, method: req.method }, 'request refused before authentication');
        return answerRefusal(res, malformed);
      }
      const target = req.url ?? '/';
      const mark = target.indexOf('?');
      const path = mark < 0 ? target : target.slice(0, mark);
      // Probes and scrapes come every few seconds and say nothing about a caller's work: not traced.
      if (UNTRACED_PATHS.test(path)) return serve(req, res, path);
      inServerSpan(req, res, { path, query: mark < 0 ? undefined : target.slice(mark + 1) }, redact, () => serve(req, res, path));
    },
    dropEventStreams() {
      for (const res of eventStreams) res.destroy();
    },
  };
}
