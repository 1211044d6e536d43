import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createYoga, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import { createCatalogCache } from './catalog/catalog-cache.js';
import { graphiqlEnabled, type Config } from './config.js';
import { contextFactory, type GatewayContext } from './context.js';
import { redactingMaskError } from './error-masking.js';
import { createGraphiqlPage, GRAPHIQL_OPTIONS } from './graphiql-page.js';
import { httpServerOptions } from './http-server-options.js';
import type { LiveLogger } from './live/listener.js';
import { createLive, type Live } from './live/live.js';
import { createLiveStore } from './live/live-store.js';
import { createDrain } from './ops/drain.js';
import { createLogger, logLevel, type Logger } from './ops/logger.js';
import { createMetrics, type GatewayMetrics } from './ops/metrics.js';
import { useCompiledExecution } from './ops/use-compiled-execution.js';
import { reportUnexpectedErrors } from './ops/report-unexpected-errors.js';
import { useOperationLog } from './ops/use-operation-log.js';
import { useOperationMetrics } from './ops/use-operation-metrics.js';
import { requestIdOf, useRequestId } from './ops/use-request-id.js';
import { yogaLogger } from './ops/yoga-logger.js';
import { createReadiness } from './readiness.js';
import { configuredSecrets, createRedactor, type Redactor } from './redaction.js';
import { answerRefusal, refuseRequestTarget } from './request-target.js';
import { schema } from './schema/index.js';
import { createSecurity } from './security/security.js';
import type { UpstreamClient } from './upstream/types.js';
import { useResponseRedaction } from './use-response-redaction.js';
import { attachWebSocket, isWebSocketContext } from './websocket.js';

// One node:http server: yoga on /graphql (HTTP, SSE, and graphql-ws on the same path), plus the probes an
// operator needs. Tests build it with listen(0); main.ts adds process signals around it.

export interface GatewayOptions {
  config: Config;
  client: UpstreamClient;
  /** Where the live hub reports sustained upstream outages. Default: `logger`. */
  liveLogger?: LiveLogger;
  /**
   * Every secret, blanked from responses and /metrics and refused in request ids. Default: the configured ones
   * (REWARD_API_TOKEN, GATEWAY_API_KEYS). Pass the logger's, so both know the same, the upstream token included.
   */
  redactor?: Redactor;
  /** Default: JSON lines on stdout at logLevel(config), with `redactor`. */
  logger?: Logger;
  /** Default: a fresh registry. Pass the one whose `upstreamCall` is the client's `onCall` to see upstream calls. */
  metrics?: GatewayMetrics;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, GatewayContext>;
  server: Server;
  /** The live hub behind subscriptions (hooks and counts for metrics and tests). */
  live: Live;
  /** Listens on config HOST:PORT (or the given port, 0 for ephemeral) and returns the base URL. */
  start(port?: number): Promise<string>;
  /**
   * Starts draining while still serving: /ready answers 503 so load balancers stop sending, and every
   * response closes its connection. stop() drains too; calling this first gives balancers time to notice.
   */
  drain(): void;
  /** Stops accepting, lets in-flight requests finish until the deadline, then closes what is left. */
  stop(deadlineMs?: number): Promise<void>;
}

/** How long start() waits for Redis in cluster mode before serving degraded (and connecting in the background). */
const REDIS_CONNECT_WAIT_MS = 2_000;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
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

export function createGateway({
  config,
  client,
  liveLogger,
  redactor = createRedactor(configuredSecrets(config)),
  logger = createLogger({ level: logLevel(config), redactor }),
  metrics = createMetrics(),
}: GatewayOptions): Gateway {
  // Aborted at the stop deadline: every upstream call of every operation still running, creates included.
  const stopping = new AbortController();
  // The client as operations, the live hub and readiness pings use it (scope.ts). Pings too: one waiting on a
  // hanging upstream held the process past the deadline, as closing the pool waits for every call.
  const upstream = client.inScope({ signal: stopping.signal });
  const catalog = createCatalogCache(config.CATALOG_CACHE_TTL_MS);
  const readiness = createReadiness(upstream, config.READY_CACHE_MS);
  const shared = createLiveStore(config, (up) =>
    up
      ? logger.info({}, 'redis: connected; cluster mode')
      : logger.warn({}, 'redis: unreachable; subscriptions poll locally and limits apply per replica until it returns'),
  );
  const live = createLive({
    client: upstream,
    store: shared.store,
    intervalMs: config.POLL_INTERVAL_MS,
    retentionMs: config.LIVE_RETENTION_MS,
    maxPollers: config.LIVE_MAX_POLLERS,
    maxWatchedPerKey: config.LIVE_MAX_WATCHED_PER_KEY,
    maxSubscriptionsPerKey: config.LIVE_MAX_SUBSCRIPTIONS_PER_KEY,
    logger: liveLogger ?? logger,
  });
  metrics.watchLive(live, shared.redisUp);
  const drain = createDrain();
  const security = createSecurity(
    config,
    shared.redis && { redis: shared.redis, onReplicaCount: (replicas) => logger.info({ replicas }, 'rate limit: replicas known') },
  );
  for (const warning of security.warnings) logger.warn(warning);

  const newContext = contextFactory({ client: upstream, catalog, live, logger, onLoaderBatch: metrics.loaderBatch, callerFor: security.callerFor });
  const graphiqlPage = createGraphiqlPage();
  const yoga = createYoga<Record<string, unknown>, GatewayContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    batching: false,
    // The access pipeline's useBodyLimit bounds bodies by their Content-Length (security/use-body-limit.ts).
    maxRequestBodySize: false,
    graphiql: graphiqlEnabled(config) ? GRAPHIQL_OPTIONS : false,
    renderGraphiQL: graphiqlPage.render,
    maskedErrors: { maskError: reportUnexpectedErrors(redactingMaskError(redactor.redact), logger) },
    logging: yogaLogger(logger),
    cors: security.cors,
    // /ready before the door: a load balancer's probe carries no key. Then the door: nothing else runs for a
    // caller without a valid key.
    plugins: [
      useReadinessCheck({
        endpoint: '/ready',
        check: async ({ fetchAPI }) => {
          const answer = (status: number, body: object) =>
            new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
          if (drain.active) return answer(503, { status: 'draining' });
          // Redis is reported, never a reason to refuse traffic: without it the gateway runs degraded, not down.
          const redis = shared.redisUp() === null ? {} : { redis: shared.redisUp() ? 'up' : 'down' };
          const r = await readiness.check();
          return r.ready ? answer(200, { status: 'ready', ...redis }) : answer(503, { status: 'unavailable', reason: r.reason, ...redis });
        },
      }),
      ...security.plugins,
      useRequestId({ refuse: redactor.contains }),
      useResponseRedaction(redactor.redact),
      useOperationLog({ logger }),
      useOperationMetrics({ registry: metrics.registry }),
      graphiqlPage.plugin,
      useCompiledExecution({ logger, interpretedRuns: config.COMPILE_AFTER_RUNS }),
    ],
    context: (initial) =>
      newContext({
        requestId: requestIdOf(initial),
        ...(isWebSocketContext(initial)
          ? { authorization: initial.authorization }
          : { signal: initial.request.signal, authorization: initial.request.headers.get('authorization') }),
      }),
  });

  // Open SSE subscription responses: on stop they are dropped rather than completed, so clients reconnect
  // (to this instance once restarted, or to another) instead of taking the stream as finished.
  const eventStreams = new Set<ServerResponse>();

  const server = createServer(httpServerOptions(config), (req: IncomingMessage, res: ServerResponse) => {
    drain.track(res);
    const malformed = refuseRequestTarget(req);
    if (malformed) {
      // Scanners send these by the thousand: debug, and neither the target nor the Host (they are the sender's text).
      logger.debug({ code: malformed.code, method: req.method }, 'request refused before authentication');
      return answerRefusal(res, malformed);
    }
    if (!security.hostAllowed(req.headers.host)) {
      return json(res, 403, {
        errors: [
          {
            message: 'This gateway has no API keys configured and serves loopback host names only (localhost, 127.0.0.1, [::1]).',
            extensions: { code: 'HOST_NOT_ALLOWED' },
          },
        ],
      });
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') return pointToGraphql(req, res, graphiqlEnabled(config));
    if (path === '/health') return json(res, 200, { status: 'ok' });
    if (path === '/metrics') return void metrics.respond(res, redactor.redact);
    if (path === '/ready') return yoga(req, res);
    if (req.headers.accept?.includes('text/event-stream')) {
      eventStreams.add(res);
      res.once('close', () => eventStreams.delete(res));
    }
    return yoga(req, res);
  });
  // Beyond it new connections (HTTP and WebSocket alike) are closed at once, before anything is read.
  server.maxConnections = config.HTTP_MAX_CONNECTIONS;
  const websocket = attachWebSocket(
    server,
    yoga,
    security.websocket,
    {
      maxPayloadBytes: config.WS_MAX_PAYLOAD_BYTES,
      maxOperationsPerSocket: config.WS_MAX_SUBSCRIPTIONS_PER_SOCKET,
      maxConnectionsPerKey: config.WS_MAX_CONNECTIONS_PER_KEY,
      maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES,
    },
    logger,
  );

  return {
    yoga,
    server,
    live,
    drain: () => drain.begin(),
    async start(port = config.PORT) {
      await shared.connected(REDIS_CONNECT_WAIT_MS);
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, security.host, () => {
          server.off('error', reject);
          const { port: bound } = server.address() as AddressInfo;
          const host = security.host.includes(':') ? `[${security.host}]` : security.host;
          resolve(`http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}`);
        });
      });
    },
    async stop(deadlineMs = 10_000) {
      drain.begin();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // One deadline for the whole stop, counted from now. Each wait below used to start its own (the
      // WebSockets', then the HTTP connections'), so a socket that never answered its close and a request
      // still running took twice the deadline.
      let cut: () => void = () => undefined;
      const passed = new Promise<void>((resolve) => (cut = resolve));
      const deadline = setTimeout(() => {
        stopping.abort();
        server.closeAllConnections();
        cut();
      }, deadlineMs);
      deadline.unref();
      const websocketsClosed = websocket.close(deadlineMs);
      for (const res of eventStreams) res.destroy();
      live.close();
      server.closeIdleConnections();
      // Redis may not answer: its goodbye (the rate limit's replica entry, then the store) is not worth more
      // than the deadline.
      const goodbye = security.close().then(() => shared.store.close());
      await Promise.race([goodbye, passed]);
      await Promise.all([websocketsClosed, closed]);
      clearTimeout(deadline);
      await yoga.dispose();
    },
  };
}
