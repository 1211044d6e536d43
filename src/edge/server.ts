import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { observingClient } from '../cache/cached-client.js';
import { ReadCache } from '../cache/read-cache.js';
import { createCatalogCache } from '../catalog/catalog-cache.js';
import type { Config } from '../config.js';
import { contextFactory } from '../graph/context.js';
import { createGatewayYoga, type GatewayYoga } from './gateway-yoga.js';
import { checkConnectionsOnlyWhileOpen, httpServerOptions } from './http-server-options.js';
import { createHttpEntry } from './http-entry.js';
import type { LiveLogger } from '../live/listener.js';
import { createLive, type Live } from '../live/live.js';
import { createLiveStore } from '../live/live-store.js';
import { createDrain } from '../ops/drain.js';
import { createLogger, logLevel, type Logger } from '../ops/logger.js';
import { createMetrics, type GatewayMetrics } from '../ops/metrics.js';
import { useReadiness, watchUpstream } from './readiness.js';
import { configuredSecrets, createRedactor, type Redactor } from '../redaction/redaction.js';
import { createSecurity } from '../security/security.js';
import type { UpstreamClient } from '../upstream/types.js';
import { webhookSubscriptions } from './webhook-subscriptions.js';
import { webhooksRequireHttps } from '../webhooks/config.js';
import { createWebhookEgress, type ResolveAll } from '../webhooks/egress.js';
import { createMemoryWebhookStore } from '../webhooks/memory-store.js';
import { createRedisWebhookStore } from '../webhooks/redis-store.js';
import { webhookMetrics } from '../webhooks/metrics.js';
import { createWebhooks, type Webhooks } from '../webhooks/webhooks.js';
import { attachWebSocket, webSocketLimits } from './websocket.js';

// One node:http server: what a request meets before yoga (http-entry.ts), yoga on /graphql for HTTP and SSE
// (gateway-yoga.ts), and graphql-ws on the same path through the same yoga (websocket.ts). Tests build it with
// listen(0); main.ts adds process signals around it.

export interface GatewayOptions {
  config: Config;
  client: UpstreamClient;
  /** Where the live hub reports sustained upstream outages. Default: `logger`. */
  liveLogger?: LiveLogger;
  /**
   * Every secret, blanked from errors and /metrics and refused in request ids. Default: the configured ones
   * (REWARD_API_TOKEN, GATEWAY_API_KEYS). Pass the logger's, so both know the same, the upstream token included;
   * the upstream's text is redacted by the client, so make `client` with this one's `redact` too.
   */
  redactor?: Redactor;
  /** Default: JSON lines on stdout at logLevel(config), with `redactor`. */
  logger?: Logger;
  /** Default: a fresh registry. Pass the one whose `upstreamCall` is the client's `onCall` to see upstream calls. */
  metrics?: GatewayMetrics;
  /** How webhook URLs' names are resolved, at registration and every attempt. Default: the system's resolver. */
  webhookLookup?: ResolveAll;
}

export interface Gateway {
  yoga: GatewayYoga;
  server: Server;
  /** The live hub behind subscriptions (hooks and counts for metrics and tests). */
  live: Live;
  /** Webhook endpoints and their delivery workers. */
  webhooks: Webhooks;
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

export function createGateway({
  config,
  client,
  liveLogger,
  redactor = createRedactor(configuredSecrets(config)),
  logger = createLogger({ level: logLevel(config), redactor }),
  metrics = createMetrics(),
  webhookLookup,
}: GatewayOptions): Gateway {
  // Aborted at the stop deadline: every upstream call of every operation still running, creates included.
  const stopping = new AbortController();
  // The client as operations, the live hub and /ready's pings use it (scope.ts). Pings too: one waiting on a
  // hanging upstream held the process past the deadline, as closing the pool waits for every call.
  const upstream = client.inScope({ signal: stopping.signal });
  const catalog = createCatalogCache(config.CATALOG_CACHE_TTL_MS);
  // Reported by /ready and /metrics, never a reason to refuse (readiness.ts).
  const upstreamWatch = watchUpstream(upstream, config.READY_CACHE_MS);
  const shared = createLiveStore(config, ({ up, host, reason }) =>
    up
      ? logger.info({ redis: host, reason }, 'redis: connected; cluster mode')
      : logger.warn({ redis: host, reason }, 'redis: unreachable; subscriptions poll locally and limits apply per replica until it returns'),
  );
  // The read cache under every operation's loaders (docs/caching.md); pollers read past it and drop what they
  // see change.
  const cache =
    config.CACHE_TTL_MS > 0
      ? new ReadCache({
          ttlMs: config.CACHE_TTL_MS,
          staleIfErrorMs: config.CACHE_STALE_IF_ERROR_MS,
          maxBytes: config.CACHE_MAX_BYTES,
          shared: shared.cache,
          hooks: metrics.cache,
        })
      : null;
  const live = createLive({
    client: cache ? observingClient(upstream, cache) : upstream,
    store: shared.store,
    intervalMs: config.POLL_INTERVAL_MS,
    retentionMs: config.LIVE_RETENTION_MS,
    maxPollers: config.LIVE_MAX_POLLERS,
    maxWatchedPerKey: config.LIVE_MAX_WATCHED_PER_KEY,
    maxSubscriptionsPerKey: config.LIVE_MAX_SUBSCRIPTIONS_PER_KEY,
    logger: liveLogger ?? logger,
  });
  metrics.watchLive(live, shared.redisUp);
  metrics.watchShield(client.shield);
  // Cluster mode: the fixed upstream budget is one bucket in Redis for every replica, not one per process.
  const ceiling = client.shield.state().ceiling;
  if (ceiling && shared.upstreamBudget) client.shield.shareCeiling(shared.upstreamBudget({ rate: ceiling.perSecond, burst: ceiling.burst }));
  const drain = createDrain();
  const security = createSecurity(
    config,
    shared.redis && {
      redis: shared.redis,
      onReplicaCount: (replicas) => logger.info({ replicas }, 'rate limit: replicas known'),
      persistedDocuments: shared.persistedDocuments,
    },
  );
  for (const warning of security.warnings) logger.warn(warning);
  metrics.watchReadiness({ upstream: () => upstreamWatch.last(), issuers: security.identity?.issuers });

  // Webhook endpoints: their subscriptions run through this gateway's yoga as their registrants, their POSTs
  // go out through the egress (the address policy and one pinned connection per attempt).
  const egress = createWebhookEgress({
    allowedHosts: config.WEBHOOK_ALLOWED_HOSTS ?? [],
    allowedPorts: config.WEBHOOK_ALLOWED_PORTS ?? [],
    requireHttps: webhooksRequireHttps(config.NODE_ENV),
    logger,
    ...(webhookLookup && { lookup: webhookLookup }),
  });
  const webhookSeries = webhookMetrics(metrics.registry);
  const webhooks = createWebhooks({
    // Cluster mode: in Redis, every replica's to send; the lease of each endpoint says which one does.
    store: shared.webhookRecords ? createRedisWebhookStore(shared.webhookRecords) : createMemoryWebhookStore(),
    leases: shared.store,
    leaseMs: config.LIVE_LEASE_MS,
    egress,
    source: webhookSubscriptions(
      () => yoga,
      security.websocket.paramsHooks,
      new Map((config.GATEWAY_API_KEYS ?? []).map((key) => [key.name, key.scopes])),
    ),
    settings: {
      maxEndpointsPerKey: config.WEBHOOK_MAX_ENDPOINTS_PER_KEY,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    },
    logger,
    hooks: webhookSeries.hooks,
  });
  webhookSeries.watch(webhooks);
  if (webhooks.durable) logger.info('webhooks: endpoints and pending deliveries are kept in Redis, shared by the replicas');
  else logger.info('webhooks: endpoints and pending deliveries are kept in this process only and do not survive a restart (docs/webhooks.md)');

  const yoga = createGatewayYoga({
    config,
    security,
    readiness: useReadiness({
      upstream: upstreamWatch,
      shield: client.shield,
      draining: () => drain.active,
      redisUp: shared.redisUp,
      issuers: security.identity?.issuers,
    }),
    newContext: contextFactory({ client: upstream, catalog, cache, live, webhooks, logger, onLoaderBatch: metrics.loaderBatch }),
    redactor,
    logger,
    metrics,
  });
  const entry = createHttpEntry({ config, yoga, drain, hostAllowed: security.hostAllowed, metrics, redact: redactor.redact, logger });
  const server = createServer(httpServerOptions(config), entry.handle);
  checkConnectionsOnlyWhileOpen(server);
  // Beyond it new connections (HTTP and WebSocket alike) are closed at once, before anything is read.
  server.maxConnections = config.HTTP_MAX_CONNECTIONS;
  const websocket = attachWebSocket(server, yoga, security.websocket, webSocketLimits(config), logger);

  return {
    yoga,
    server,
    live,
    webhooks,
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
      entry.dropEventStreams();
      webhooks.close();
      live.close();
      upstreamWatch.close();
      // Before any await: a wait that rejects must not leave the sampler subscribed.
      metrics.close();
      server.closeIdleConnections();
      // Redis may not answer: its goodbye (the rate limit's replica entry, then the store) is not worth more
      // than the deadline.
      const goodbye = security.close().then(() => shared.store.close());
      await Promise.race([goodbye, passed]);
      await Promise.all([websocketsClosed, closed, egress.close()]);
      clearTimeout(deadline);
      await yoga.dispose();
    },
  };
}
