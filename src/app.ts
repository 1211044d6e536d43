import type { Server } from 'node:http';
import { once } from 'node:events';
import { AsyncDisposableStack } from '@whatwg-node/disposablestack';
import { readCacheFromConfig } from './cache/from-config.js';
import { createCatalogCache } from './catalog/catalog-cache.js';
import type { Config } from './config.js';
import { createGatewayYoga, type GatewayYoga } from './edge/gateway-yoga.js';
import { createHttpEntry } from './edge/http-entry.js';
import { useReadiness, watchUpstream } from './edge/readiness.js';
import { createGatewayServer } from './edge/server.js';
import { webhookSubscriptions } from './edge/webhook-subscriptions.js';
import { attachWebSocket, webSocketLimits } from './edge/websocket.js';
import { contextFactory } from './graph/context.js';
import type { LiveLogger } from './live/listener.js';
import { liveFromConfig, liveQueriesFromConfig } from './live/from-config.js';
import type { Live } from './live/live.js';
import { createLiveStore } from './live/live-store.js';
import { mcpFromConfig } from './mcp/from-config.js';
import { createDrain } from './ops/drain.js';
import { createLogger, logLevel, type Logger } from './ops/logger.js';
import { createMetrics, type GatewayMetrics } from './ops/metrics.js';
import { configuredSecrets, createRedactor, type Redactor } from './redaction/redaction.js';
import { createSecurity } from './security/security.js';
import type { UpstreamClient } from './upstream/types.js';
import type { ResolveAll } from './webhooks/egress.js';
import { webhookEgressFromConfig, webhooksFromConfig } from './webhooks/from-config.js';
import type { Webhooks } from './webhooks/webhooks.js';

// The composition root: every area of the gateway built from the configuration and wired together, in the
// order they need each other, and undone by stop(). The Node server (edge/server.ts) serves them: HTTP and SSE
// through the HTTP entry and yoga, graphql-ws on the same path through the same yoga. Tests start it on port 0
// (or not at all, asking yoga in process); main.ts adds process signals around it.

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
  // What stop() undoes, each part's teardown registered as the part is made; see stop() for the order.
  const teardown = new AsyncDisposableStack();
  // Aborted at the stop deadline: every upstream call of every operation still running, creates included, the
  // connections still open (server.ts) and the wait for Redis' goodbye.
  const stopping = new AbortController();
  /** Waits for `work`, or for the deadline if it comes first. */
  const untilDeadline = async (work: Promise<unknown>): Promise<void> =>
    void (await Promise.race([work, stopping.signal.aborted ? null : once(stopping.signal, 'abort')]));
  try {
    // The client as operations, the live hub and /ready's pings use it (scope.ts). Pings too: one waiting on a
    // hanging upstream held the process past the deadline, as closing the pool waits for every call.
    const upstream = client.inScope({ signal: stopping.signal });
    const catalog = createCatalogCache(config.CATALOG_CACHE_TTL_MS);

    // Webhook POSTs go out through it. Made before the parts whose teardown ends at once, so that waiting for
    // its connections to drop comes after them (and after Redis' goodbye).
    const egress = webhookEgressFromConfig(config, logger, webhookLookup);
    teardown.defer(() => egress.close());

    const shared = createLiveStore(config, ({ up, host, reason }) =>
      up
        ? logger.info({ redis: host, reason }, 'redis: connected; cluster mode')
        : logger.warn({ redis: host, reason }, 'redis: unreachable; subscriptions poll locally and limits apply per replica until it returns'),
    );
    // Redis may not answer: its goodbye is not worth more than the deadline.
    teardown.defer(() => untilDeadline(shared.store.close()));
    // Cluster mode: the fixed upstream budget is one bucket in Redis for every replica, not one per process.
    const ceiling = client.shield.state().ceiling;
    if (ceiling && shared.upstreamBudget) client.shield.shareCeiling(shared.upstreamBudget({ rate: ceiling.perSecond, burst: ceiling.burst }));

    const security = createSecurity(
      config,
      shared.redis && {
        redis: shared.redis,
        onReplicaCount: (replicas) => logger.info({ replicas }, 'rate limit: replicas known'),
        persistedDocuments: shared.persistedDocuments,
      },
    );
    for (const warning of security.warnings) logger.warn(warning);
    // The rate limit's replica entry leaves Redis before the store's connection closes.
    teardown.defer(() => untilDeadline(security.close()));

    // Reported by /ready and /metrics, never a reason to refuse (readiness.ts).
    const upstreamWatch = watchUpstream(upstream, config.READY_CACHE_MS);
    teardown.defer(() => upstreamWatch.close());
    const cache = readCacheFromConfig(config, shared.cache, metrics.cache);
    const live = liveFromConfig(config, { client: upstream, cache, store: shared.store, logger: liveLogger ?? logger });
    teardown.defer(() => live.close());
    const liveQueries = liveQueriesFromConfig(config, { live, cache, store: shared.store });
    teardown.defer(() => liveQueries.close());

    metrics.watchLive(live, shared.redisUp);
    metrics.watchLiveQueries(liveQueries);
    metrics.watchShield(client.shield);
    metrics.watchReadiness({ upstream: () => upstreamWatch.last(), issuers: security.identity?.issuers });
    teardown.defer(() => metrics.close());

    // Webhook endpoints: their subscriptions run through this gateway's yoga as their registrants.
    const webhooks = webhooksFromConfig(config, {
      egress,
      records: shared.webhookRecords,
      leases: shared.store,
      source: webhookSubscriptions(
        () => yoga,
        security.websocket.paramsHooks,
        new Map((config.GATEWAY_API_KEYS ?? []).map((key) => [key.name, key.scopes])),
      ),
      registry: metrics.registry,
      logger,
    });
    teardown.defer(() => webhooks.close());

    // The edge: yoga, what a request meets before it, and the Node server with its WebSockets.
    const drain = createDrain();
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
      liveQueries,
    });
    // Agents (MCP): each tool call runs through the same yoga as the caller.
    const mcp = mcpFromConfig(
      config,
      {
        yoga,
        authenticate: security.authenticate,
        rateLimit: security.rateLimit,
        onToolCall: metrics.mcpToolCall,
        onWatchFailed: (uri, reason) => logger.warn({ uri, reason }, 'mcp: a subscribed resource cannot be followed for now; trying again'),
        sharedSubscriptions: shared.mcpSubscriptions,
      },
      (warning) => logger.warn(warning),
    );
    const entry = createHttpEntry({
      config,
      yoga,
      drain,
      hostAllowed: security.hostAllowed,
      metrics,
      redact: redactor.redact,
      logger,
      routes: mcp?.routes,
    });
    const http = createGatewayServer(config, entry.handle);
    const websocket = attachWebSocket(http.server, yoga, security.websocket, webSocketLimits(config), logger);

    return {
      yoga,
      server: http.server,
      live,
      webhooks,
      drain: () => drain.begin(),
      async start(port = config.PORT) {
        await shared.connected(REDIS_CONNECT_WAIT_MS);
        return http.listen(port, security.host);
      },
      // The drain, the one deadline and the edge wrap everything else, so they are not on the stack: the edge
      // stops taking work (no new connection, 1001 to every WebSocket, the event streams dropped) before any area
      // closes, and is let go only once all have: its connections are awaited (cut at the deadline) and yoga,
      // which every request runs through, is disposed last. The stack runs each teardown to its end before the
      // next, so it could not hold the edge open around the others.
      //
      // The areas are undone by `teardown`, newest first, which is the order they need without a list to keep:
      // a part closes before what it was built on (webhooks and the live hub before the store, the rate limit's
      // Redis entry before the store's connection). What ends at once was made last, so all of it has ended
      // before the first wait, and a teardown that fails does not keep the ones after it from running (the stack
      // runs them all and throws the errors together): the sampler of metrics is not left subscribed.
      async stop(deadlineMs = 10_000) {
        drain.begin();
        const deadline = setTimeout(() => stopping.abort(), deadlineMs);
        deadline.unref();
        const connectionsClosed = Promise.all([http.close(stopping.signal), websocket.close(deadlineMs)]);
        entry.dropEventStreams();
        await teardown.disposeAsync();
        await connectionsClosed;
        clearTimeout(deadline);
        await yoga.dispose();
      },
    };
  } catch (error) {
    // A start that fails part-way (a part refusing a setting only it reads: MCP_ENABLED=true without its
    // MCP_OPERATIONS_DIR, say) closes what was made before it, which would otherwise stay: the metrics' sampler
    // subscribed, the live hub's and the readiness watch's timers, Redis' connections. In a process that embeds
    // the gateway or tries the start again, they would pile up. Nothing was served, so nothing is waited for.
    stopping.abort();
    metrics.close();
    teardown.disposeAsync().catch((closeError: unknown) => logger.warn({ err: closeError }, 'start failed, and closing what it had made failed too'));
    throw error;
  }
}
