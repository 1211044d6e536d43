import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { ClusterSettings } from '../cluster/config.js';
import type { PersistedDocumentStore } from '../cluster/persisted-documents.js';
import type { RedisLimits } from '../cluster/shared-limits.js';
import type { IdentitySettings } from '../identity/config.js';
import { graphiqlEnabled, type ProcessSettings } from '../ops/config.js';
import { createKeyring } from './api-keys.js';
import { introspectionEnabled, KEY_BURST, KEYLESS_BURST, type SecuritySettings } from './config.js';
import { createIdentity, type Identity } from './identity.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import { startReplicaRegistry, type ReplicaRegistry } from './replica-registry.js';
import { createSharedRateLimiter } from './shared-rate-limit.js';
import type { Caller } from './scopes.js';
import { createAuthentication, useApiKeys, type Authentication } from './use-api-keys.js';
import { useAutomaticPersistedQueries } from './use-automatic-persisted-queries.js';
import { useBodyLimit } from './use-body-limit.js';
import { useContentNegotiation } from './use-content-negotiation.js';
import { useCostLimit } from './use-cost-limit.js';
import { originAllowed, useCsrfPrevention } from './use-csrf-prevention.js';
import { useIntrospectionPolicy } from './use-introspection-policy.js';
import { useOperationLimits } from './use-operation-limits.js';
import { createRateLimit, useRateLimit, type RateLimit } from './use-rate-limit.js';
import { loadTrustedDocuments, useTrustedDocuments } from './use-trusted-documents.js';
import { useTokenExpiry } from './use-token-expiry.js';
import { useTrustedOnlyCallers } from './use-trusted-only-callers.js';

// Everything that decides who may reach the gateway and how much they may ask, assembled once from config:
// the access pipeline, one ordered list of yoga/envelop plugins (one concern per file, its defaults beside it)
// that every transport runs through, so each rule is written once. A WebSocket has no HTTP request for the
// first hooks: it applies authentication and the rate limit once per connection at connection_init with the same
// functions (edge/ws-admission.ts); each of its operations, like a webhook endpoint's, runs the params stage
// (rate limit, trusted documents) as the caller in its context, then parses, validates, builds the context,
// executes and subscribes through the same envelop instance (edge/run-as-caller.ts).

/**
 * What of the pipeline hooks the HTTP request, which a WebSocket message has not: the WebSocket endpoint applies
 * it at its own points (the connection and each subscribe).
 */
export interface WebSocketPolicy {
  /** Authentication's: the caller a connection's Authorization names (use-api-keys.ts). */
  identify: Authentication['identify'];
  /** The per-key rate each connection_init spends from (use-rate-limit.ts, whose params stage spends per subscribe). */
  rateLimit: RateLimit;
  /** How long after a token's `exp` its connection is closed (AUTH_JWT_CLOCK_TOLERANCE_S). */
  tokenGraceMs?: number;
  /** The pipeline's `onParams` hooks (rate limit, trusted documents), which yoga runs for HTTP only. */
  paramsHooks: readonly NonNullable<Plugin['onParams']>[];
  /**
   * Whether an upgrade request may open a socket: the HTTP server's Host rule (DNS rebinding), and its Origin
   * (cross-site WebSocket hijacking, use-csrf-prevention.ts).
   */
  upgradeAllowed(request: IncomingMessage): boolean;
}

export interface Security {
  /** The caller authentication found for an HTTP request, for the context and its per-field scope checks. */
  callerOf(request: Request): Caller;
  /** The caller an Authorization value names, or null (no rate accounting). */
  identify: Authentication['identify'];
  /** The caller an Authorization value names, or the refusal that says why not (no rate accounting): for /mcp. */
  authenticate: Authentication['authenticate'];
  /** The rate per caller the pipeline spends from, for what spends outside it (/mcp's messages that run no operation). */
  rateLimit: RateLimit;
  /** The access pipeline: yoga plugins in the order a request meets them, to run before all others. */
  plugins: Plugin[];
  cors: { origin: string[]; methods: string[]; credentials: false } | false;
  /** Where to listen: loopback whatever HOST says while the gateway is open to everyone. */
  host: string;
  /** Loud start-up warnings for the operator. */
  warnings: string[];
  /** The same rules for graphql-ws, whose messages yoga's HTTP plugins never see. */
  websocket: WebSocketPolicy;
  /**
   * Whether a request's Host may be served. Without API keys only loopback names: a page on a foreign origin
   * whose name resolves to 127.0.0.1 (DNS rebinding) would otherwise reach a gateway that trusts everyone.
   */
  hostAllowed(host: string | undefined): boolean;
  /** The OpenID issuers whose tokens are accepted, for /ready; null without any. */
  identity: Identity | null;
  /** Cluster mode: leaves the replica registry, so the other replicas' share of the rate limit grows at once. */
  close(): Promise<void>;
}

/** Cluster mode: where the rate limit keeps its counts in Redis, and who hears of the replica count. */
export interface SharedLimits {
  redis: RedisLimits;
  onReplicaCount?(replicas: number): void;
  /** Where automatic persisted queries registered on any replica are found. */
  persistedDocuments?: PersistedDocumentStore;
}

/** What the access pipeline reads: its own area's settings and the issuers', where to listen, and Redis's timeout. */
type AccessSettings = SecuritySettings &
  IdentitySettings &
  Pick<ProcessSettings, 'NODE_ENV' | 'HOST' | 'GRAPHIQL'> &
  Pick<ClusterSettings, 'REDIS_COMMAND_TIMEOUT_MS'>;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** localhost and *.localhost (browsers resolve those to loopback themselves), 127.0.0.0/8, [::1]; any port. */
const LOOPBACK_HOST = /^(?:(?:[a-z0-9-]+\.)*localhost\.?|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

/** `shared`: cluster mode's limits in Redis; without it the limit is per process. */
export function createSecurity(config: AccessSettings, shared?: SharedLimits): Security {
  const keys = config.GATEWAY_API_KEYS ?? [];
  const keyring = keys.length ? createKeyring(keys) : null;
  const identity = createIdentity(config);
  // Keyless development: no keys and no token issuers, every caller the development caller on loopback. Only
  // then does the remote address tell callers apart (rate limit) and may a same-site GET carry no header (CSRF);
  // with tokens alone each subject is a caller of its own, as each key is.
  const keyless = !keyring && !identity;
  const rate = { perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST ?? (keyless ? KEYLESS_BURST : KEY_BURST) };
  const cluster = shared ? sharedRateLimit(config, rate, shared) : null;
  const rateLimit = createRateLimit(cluster?.limiter ?? createRateLimiter(rate), { perAddress: keyless });
  const warnings: string[] = [];

  if (!keyring && identity) {
    warnings.push(
      'AUTH_JWT_ISSUER (or AUTH_JWT_ISSUERS) is set without GATEWAY_API_KEYS: keyless development is off, every request ' +
        'needs an access token from the issuer in its Authorization header. Unset it to develop without tokens.',
    );
  }

  let host = config.HOST;
  if (keyless) {
    warnings.push(
      'NO GATEWAY API KEYS CONFIGURED: every caller has every scope, including spending money. ' +
        'The gateway listens on loopback only. Set GATEWAY_API_KEYS before exposing it.',
    );
    if (!LOOPBACK.has(host)) {
      warnings.push(`HOST=${host} ignored without API keys: listening on 127.0.0.1.`);
      host = '127.0.0.1';
    }
  }

  // A request without Host cannot come from a browser, which is what DNS rebinding needs.
  const hostAllowed = (hostHeader: string | undefined) =>
    keyring !== null || identity !== null || hostHeader === undefined || isLoopbackHost(hostHeader);

  const graphiql = graphiqlEnabled(config);
  const trusted = config.TRUSTED_DOCUMENTS ? loadTrustedDocuments(config.TRUSTED_DOCUMENTS) : null;
  const authentication = createAuthentication(keyring, identity?.tokens ?? null);
  // Trusted-only callers (AUTH_TRUSTED_ONLY_CLIENTS, a key's trustedOnly) are held to the manifest, the others
  // run any document; with none configured, TRUSTED_DOCUMENTS holds everyone.
  const trustedOnlyCallers = (identity?.trustedOnlyClients.size ?? 0) > 0 || keys.some((k) => k.trustedOnly);
  if (trustedOnlyCallers && !trusted) warnings.push('Trusted-only callers are configured without TRUSTED_DOCUMENTS: they can run no operation.');
  const trustedDocuments = trustedOnlyCallers
    ? [useTrustedOnlyCallers(trusted ?? new Map(), authentication.callerOf)]
    : trusted
      ? [useTrustedDocuments(trusted)]
      : [];
  const plugins: Plugin[] = [
    useBodyLimit({ maxBytes: config.MAX_BODY_BYTES }),
    // Nothing else runs for a caller without a valid key, or past its key's rate.
    useApiKeys(authentication, { graphiql }),
    useRateLimit(rateLimit, authentication),
    useCsrfPrevention({ keyless, corsOrigins: config.CORS_ORIGINS ?? [] }),
    // Before anything executes: yoga itself only finds out after running the operation.
    useContentNegotiation({ graphiql }),
    // One or the other: with a manifest nothing may register a document of its own.
    ...(trusted
      ? trustedDocuments
      : [
          useAutomaticPersistedQueries({
            shared: shared?.persistedDocuments,
            bounds: { maxDocuments: config.APQ_MAX_DOCUMENTS_PER_CALLER, maxBytes: config.APQ_MAX_BYTES_PER_CALLER },
          }),
          ...trustedDocuments,
        ]),
    ...useOperationLimits({ maxDepth: config.MAX_DEPTH, maxAliases: config.MAX_ALIASES, maxTokens: config.MAX_TOKENS }),
    useCostLimit({ maxCost: config.MAX_COST }),
    ...useIntrospectionPolicy({ introspection: introspectionEnabled(config) }),
    ...(identity ? [useTokenExpiry(config.AUTH_JWT_CLOCK_TOLERANCE_S * 1000) as Plugin] : []),
    // Scopes are checked per field as the operation executes (scope-auth, src/schema), from the caller the
    // context is given (callerOf).
  ];

  return {
    callerOf: authentication.callerOf,
    identify: authentication.identify,
    authenticate: authentication.authenticate,
    rateLimit,
    plugins,
    cors: config.CORS_ORIGINS?.length ? { origin: config.CORS_ORIGINS, methods: ['GET', 'POST'], credentials: false } : false,
    host,
    warnings,
    hostAllowed,
    websocket: {
      identify: authentication.identify,
      rateLimit,
      tokenGraceMs: config.AUTH_JWT_CLOCK_TOLERANCE_S * 1000,
      paramsHooks: plugins.flatMap((plugin) => (plugin.onParams ? [plugin.onParams] : [])),
      upgradeAllowed: (request) => hostAllowed(request.headers.host) && originAllowed(request, config.CORS_ORIGINS ?? []),
    },
    identity,
    close: async () => cluster?.replicas.close(),
  };
}

/** Cluster mode's rate limit, and the replica registry whose count it divides by while Redis does not answer. */
function sharedRateLimit(
  config: Pick<ClusterSettings, 'REDIS_COMMAND_TIMEOUT_MS'>,
  rate: { perSecond: number; burst: number },
  { redis, onReplicaCount }: SharedLimits,
): { limiter: RateLimiter; replicas: ReplicaRegistry } {
  const replicas = startReplicaRegistry(redis, {
    timeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    onChange: onReplicaCount,
  });
  const limiter = createSharedRateLimiter(redis, {
    ...rate,
    timeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    replicas: () => replicas.count,
  });
  return { limiter, replicas };
}
