import type { IncomingMessage } from 'node:http';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { Plugin } from 'graphql-yoga';
import type { RedisLimits } from '../cluster/shared-limits.js';
import { graphiqlEnabled, introspectionEnabled, type Config } from '../config.js';
import { createKeyring } from './api-keys.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import { startReplicaRegistry, type ReplicaRegistry } from './replica-registry.js';
import { createSharedRateLimiter } from './shared-rate-limit.js';
import { DEVELOPMENT_CALLER, type Caller } from './scopes.js';
import { loadTrustedDocuments, useTrustedDocuments, type TrustedDocuments } from './trusted-documents.js';
import { createDoor, useApiKeys, type Door } from './use-api-keys.js';
import { useContentNegotiation } from './use-content-negotiation.js';
import { operationLimitPlugins } from './use-operation-limits.js';

// Everything that decides who may reach the gateway and how much they may ask, assembled once from config.

/**
 * What HTTP enforces in yoga plugins that never see a WebSocket message (they hook the HTTP request), applied
 * here by hand so both transports obey the same rules.
 */
export interface WebSocketPolicy {
  door: Door;
  /** Trusted-documents mode: only these operations run, by id. */
  trusted: TrustedDocuments | null;
  introspection: boolean;
  /** Browser origins allowed besides the gateway's own (cross-site WebSocket hijacking). */
  allowedOrigins: readonly string[];
  /** The HTTP server's Host rule (DNS rebinding), applied to the upgrade request. */
  hostAllowed(host: string | undefined): boolean;
}

export interface Security {
  door: Door;
  /** The identity an Authorization value carries, for per-field scope checks (no rate accounting). */
  callerFor(authorization: string | null | undefined): Caller;
  /** Yoga plugins, to run before all others. */
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
  /** A refusal for request bodies the gateway will not read, or null. */
  checkBody(req: IncomingMessage): { status: 411 | 413; message: string } | null;
  /** Cluster mode: leaves the replica registry, so the other replicas' share of the rate limit grows at once. */
  close(): Promise<void>;
}

/** Cluster mode: where the rate limit keeps its counts in Redis, and who hears of the replica count. */
export interface SharedLimits {
  redis: RedisLimits;
  onReplicaCount?(replicas: number): void;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** localhost and *.localhost (browsers resolve those to loopback themselves), 127.0.0.0/8, [::1]; any port. */
const LOOPBACK_HOST = /^(?:(?:[a-z0-9-]+\.)*localhost\.?|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}
/** The caller a request gets when its key is unknown; the door refuses it first, this is defence in depth. */
const NOBODY: Caller = { name: 'anonymous', scopes: new Set() };

/** `shared`: cluster mode's limits in Redis; without it the limit is per process. */
export function createSecurity(config: Config, shared?: SharedLimits): Security {
  const keys = config.GATEWAY_API_KEYS ?? [];
  const keyring = keys.length ? createKeyring(keys) : null;
  const cluster = shared ? sharedRateLimit(config, shared) : null;
  const door = createDoor(
    keyring,
    cluster?.limiter ?? createRateLimiter({ perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST }),
  );
  const warnings: string[] = [];

  let host = config.HOST;
  if (!keyring) {
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
  const hostAllowed = (hostHeader: string | undefined) => keyring !== null || hostHeader === undefined || isLoopbackHost(hostHeader);

  const introspection = introspectionEnabled(config);
  const plugins: Plugin[] = [
    useApiKeys(door, { graphiql: graphiqlEnabled(config) }),
    // Browsers cannot send Authorization cross-site without a CORS preflight, so it proves the same as the
    // CSRF header does.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'authorization'] }),
    // Before anything executes: yoga itself only finds out after running the operation.
    useContentNegotiation({ graphiql: graphiqlEnabled(config) }),
    ...operationLimitPlugins({
      maxDepth: config.MAX_DEPTH,
      maxAliases: config.MAX_ALIASES,
      maxTokens: config.MAX_TOKENS,
      maxCost: config.MAX_COST,
      blockSuggestions: !introspection,
    }),
  ];
  if (!introspection) plugins.push(useDisableIntrospection());
  const trusted = config.TRUSTED_DOCUMENTS ? loadTrustedDocuments(config.TRUSTED_DOCUMENTS) : null;
  if (trusted) plugins.push(useTrustedDocuments(trusted));

  return {
    door,
    callerFor: (authorization) => (keyring ? (keyring.identify(authorization) ?? NOBODY) : DEVELOPMENT_CALLER),
    plugins,
    cors: config.CORS_ORIGINS?.length ? { origin: config.CORS_ORIGINS, methods: ['GET', 'POST'], credentials: false } : false,
    host,
    warnings,
    hostAllowed,
    websocket: { door, trusted, introspection, allowedOrigins: config.CORS_ORIGINS ?? [], hostAllowed },
    checkBody(req) {
      if (req.method !== 'POST') return null;
      const length = req.headers['content-length'];
      if (length === undefined) {
        return { status: 411, message: 'POST bodies need a Content-Length header.' };
      }
      if (Number(length) > config.MAX_BODY_BYTES) {
        return { status: 413, message: `Request body too large: at most ${config.MAX_BODY_BYTES} bytes.` };
      }
      return null;
    },
    close: async () => cluster?.replicas.close(),
  };
}

/** Cluster mode's rate limit, and the replica registry whose count it divides by while Redis does not answer. */
function sharedRateLimit(config: Config, { redis, onReplicaCount }: SharedLimits): { limiter: RateLimiter; replicas: ReplicaRegistry } {
  const replicas = startReplicaRegistry(redis, {
    timeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    onChange: onReplicaCount,
  });
  const limiter = createSharedRateLimiter(redis, {
    perSecond: config.RATE_LIMIT_PER_SECOND,
    burst: config.RATE_LIMIT_BURST,
    timeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    replicas: () => replicas.count,
  });
  return { limiter, replicas };
}
