import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { apiKeysSchema } from './security/config.js';
import { CLIENT_DEFAULTS } from './upstream/config.js';

// Every environment variable the gateway reads, in one schema, so a misconfiguration fails at start-up with
// every problem listed at once rather than at the first request.

const port = z.coerce.number().int().min(0).max(65_535);
const positiveMs = z.coerce.number().int().positive();
const count = z.coerce.number().int().positive();
/** A JSON document in an environment variable; the parse error names the variable, never its content. */
const jsonText = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
    return z.NEVER;
  }
});
const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: port.default(4000),
  /** Interface to bind; loopback unless set (production deployments set 0.0.0.0 explicitly). */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Base of the reward API including /papi/v1. Unset: `npm start` embeds the sandbox. */
  REWARD_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  REWARD_API_TOKEN: z.string().min(1).optional(),
  // The upstream client owns its defaults (src/upstream/config.ts); these variables only override them.
  UPSTREAM_TIMEOUT_MS: positiveMs.default(CLIENT_DEFAULTS.timeoutMs),
  UPSTREAM_CONNECTIONS: count.default(CLIENT_DEFAULTS.connections),
  UPSTREAM_MAX_IN_FLIGHT: count.default(CLIENT_DEFAULTS.maxInFlight),
  UPSTREAM_QUEUE_TIMEOUT_MS: positiveMs.default(CLIENT_DEFAULTS.queueTimeoutMs),
  /**
   * Requests waiting for an upstream slot, all keys together: a bound on memory. Overload is refused by time
   * first: a request whose wait is estimated longer than UPSTREAM_QUEUE_TIMEOUT_MS gets GATEWAY_OVERLOADED at once.
   */
  UPSTREAM_QUEUE_MAX: count.default(CLIENT_DEFAULTS.maxQueued),
  /** The part of UPSTREAM_MAX_IN_FLIGHT (and of the queue) one API key may hold, so others keep theirs. */
  UPSTREAM_KEY_SHARE: z.coerce.number().gt(0).max(1).default(CLIENT_DEFAULTS.laneShare),
  UPSTREAM_RETRY_ATTEMPTS: count.default(CLIENT_DEFAULTS.retry.maxAttempts),
  UPSTREAM_RETRY_BASE_MS: positiveMs.default(CLIENT_DEFAULTS.retry.baseDelayMs),
  UPSTREAM_RETRY_MAX_DELAY_MS: positiveMs.default(CLIENT_DEFAULTS.retry.maxDelayMs),
  UPSTREAM_RETRY_BUDGET_MS: positiveMs.default(CLIENT_DEFAULTS.retry.budgetMs),
  /** How long brand details and regions stay cached process-wide; the catalog changes rarely. */
  CATALOG_CACHE_TTL_MS: z.coerce.number().int().min(0).default(300_000),
  /** How long /ready trusts its last upstream ping. */
  READY_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  /** Unset: info, or silent under NODE_ENV=test (see logLevel in ops/logger.ts). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  /**
   * On SIGTERM/SIGINT, how long the gateway keeps serving with /ready answering 503 before it stops accepting,
   * so a load balancer polling /ready stops sending first. 0: stop accepting at once.
   */
  SHUTDOWN_READY_DELAY_MS: z.coerce.number().int().min(0).default(0),
  /** Then, how long in-flight operations may take before their connections are cut. */
  SHUTDOWN_DEADLINE_MS: positiveMs.default(10_000),
  /** Embedded sandbox port when REWARD_API_URL is unset. */
  SANDBOX_PORT: port.default(4010),
  GRAPHIQL: flag.optional(),
  /** JSON array of {name, key, scopes}; see src/security/api-keys.ts. Unset outside production: open on loopback. */
  GATEWAY_API_KEYS: jsonText.pipe(apiKeysSchema).optional(),
  /** A file holding the same JSON (mounted secrets); loadConfig reads it into GATEWAY_API_KEYS. */
  GATEWAY_API_KEYS_FILE: z.string().min(1).optional(),
  /** Operations per second per API key (token bucket refill rate). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  /** Operations a key may send at once before the rate applies (bucket size). */
  RATE_LIMIT_BURST: count.default(40),
  MAX_DEPTH: count.default(12),
  MAX_ALIASES: count.default(20),
  MAX_TOKENS: count.default(3_000),
  /** Upstream-weighted cost per operation: page sizes multiply (src/security/operation-cost.ts). */
  MAX_COST: count.default(25_000),
  MAX_BODY_BYTES: count.default(100_000),
  /** Path of a trusted-documents manifest (hash → document); when set, only those operations run. */
  TRUSTED_DOCUMENTS: z.string().min(1).optional(),
  /** Comma-separated browser origins allowed by CORS; unset: no cross-origin browser access. */
  CORS_ORIGINS: z
    .string()
    .transform((list) =>
      list
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url()))
    .optional(),
  /** Introspection (and field suggestions): on outside production unless set. */
  INTROSPECTION: flag.optional(),
  /** How often each subscription poller asks the upstream, which has no webhooks. */
  POLL_INTERVAL_MS: positiveMs.default(5_000),
  /** The lowest POLL_INTERVAL_MS accepted, protecting the upstream from a typo; tests lower it to run fast. */
  POLL_INTERVAL_FLOOR_MS: positiveMs.default(1_000),
  /**
   * Executions of a document before it runs compiled by graphql-jit (src/ops/use-compiled-execution.ts): 0 compiles
   * it on its first, `never` runs every document interpreted by graphql-js (a switch should graphql-jit misbehave).
   */
  COMPILE_AFTER_RUNS: z.union([z.literal('never').transform(() => Infinity), z.coerce.number().int().min(0)]).default(1),
  /** Cluster mode: every replica on this Redis shares leases, snapshots, event logs and limits (docs/cluster.md). */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Every Redis key and channel of the gateway starts with this, so deployments can share one Redis. */
  REDIS_KEY_PREFIX: z.string().min(1).default('rg:'),
  /**
   * A Redis command unanswered this long fails, and the replica counts Redis as down (degraded: it polls for its
   * own subscribers) until Redis answers again. Bounds what a hung Redis can delay.
   */
  REDIS_COMMAND_TIMEOUT_MS: positiveMs.default(500),
  /** How long a watched key's poller lease lasts without renewal. Default: 3 × POLL_INTERVAL_MS. */
  LIVE_LEASE_MS: positiveMs.optional(),
  /** How long events stay in a key's log (how far back `after` can resume), and snapshots after the last poll. */
  LIVE_RETENTION_MS: positiveMs.default(3_600_000),
  /** Orders one API key may watch at once (across the cluster in cluster mode). */
  LIVE_MAX_WATCHED_PER_KEY: count.default(200),
  /** Keys (orders, the account, funds) one replica watches at most. */
  LIVE_MAX_POLLERS: count.default(2_000),
  // Caps on what one caller can make the gateway hold (connections, subscriptions, buffered output). Each
  // refusal names its variable; the defaults are above what a large internal tool uses (docs/operations.md).
  /** Subscriptions one API key may have open at once, every live root field and both transports, cluster-wide. */
  LIVE_MAX_SUBSCRIPTIONS_PER_KEY: count.default(2_000),
  /** Operations open at once on one WebSocket (subscriptions, and queries still running). */
  WS_MAX_SUBSCRIPTIONS_PER_SOCKET: count.default(200),
  /** WebSocket connections one API key may hold open on one replica. */
  WS_MAX_CONNECTIONS_PER_KEY: count.default(1_000),
  /** Largest WebSocket message accepted; a bigger one closes the socket (1009). */
  WS_MAX_PAYLOAD_BYTES: count.default(100_000),
  /** Output waiting for a WebSocket reader beyond which the socket is closed (4413) instead of buffered. */
  WS_MAX_BUFFERED_BYTES: count.default(4_194_304),
  /** Time a client has to send a request's headers (slowloris); answered 408 and closed after it. */
  HTTP_HEADERS_TIMEOUT_MS: positiveMs.default(10_000),
  /** Time a client has to send a whole request, body included. */
  HTTP_REQUEST_TIMEOUT_MS: positiveMs.default(30_000),
  /** How long an idle keep-alive connection stays open; above the load balancer's idle timeout. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveMs.default(5_000),
  /** Open TCP connections (HTTP and WebSocket together) one replica accepts; further ones are dropped. */
  HTTP_MAX_CONNECTIONS: count.default(10_000),
});

/** LIVE_LEASE_MS is filled in by loadConfig when unset: it defaults to three poll intervals. */
export type Config = Omit<z.infer<typeof configSchema>, 'LIVE_LEASE_MS'> & { LIVE_LEASE_MS: number };

/** The variables that parsed on their own; `invalid` names those set to a value that did not. */
type FieldValues = { [K in keyof Config]?: Config[K] } & { invalid: ReadonlySet<string> };

/**
 * Rules between variables. They run on every variable that parsed on its own, even when others did not, so a
 * start-up lists every problem at once (a zod refinement on the object would wait until all fields are valid).
 */
function crossFieldProblems(env: FieldValues): string[] {
  const problems: string[] = [];
  const production = (env.NODE_ENV ?? 'development') === 'production';
  /** Unset, as opposed to set to a value already reported as invalid. */
  const missing = (name: keyof Config) => env[name] === undefined && !env.invalid.has(name);
  if (env.POLL_INTERVAL_MS !== undefined && env.POLL_INTERVAL_FLOOR_MS !== undefined && env.POLL_INTERVAL_MS < env.POLL_INTERVAL_FLOOR_MS) {
    problems.push(`POLL_INTERVAL_MS must be at least POLL_INTERVAL_FLOOR_MS (${env.POLL_INTERVAL_FLOOR_MS})`);
  }
  if (env.LIVE_LEASE_MS !== undefined && env.POLL_INTERVAL_MS !== undefined && env.LIVE_LEASE_MS <= env.POLL_INTERVAL_MS) {
    problems.push(`LIVE_LEASE_MS must be longer than POLL_INTERVAL_MS (${env.POLL_INTERVAL_MS}), or leases lapse between renewals`);
  }
  if (
    env.HTTP_HEADERS_TIMEOUT_MS !== undefined &&
    env.HTTP_REQUEST_TIMEOUT_MS !== undefined &&
    env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS
  ) {
    problems.push(
      `HTTP_HEADERS_TIMEOUT_MS must be at most HTTP_REQUEST_TIMEOUT_MS (${env.HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    );
  }
  if (missing('REWARD_API_TOKEN') && (env.REWARD_API_URL || production)) {
    problems.push(`REWARD_API_TOKEN is required ${production ? 'in production' : 'when REWARD_API_URL is set'}`);
  }
  if (production && missing('GATEWAY_API_KEYS')) {
    problems.push('GATEWAY_API_KEYS is required in production (or GATEWAY_API_KEYS_FILE): the gateway spends real money');
  }
  if (production && missing('REWARD_API_URL')) {
    problems.push('REWARD_API_URL is required in production (the embedded sandbox is for development only)');
  }
  if (!env.REWARD_API_URL && env.PORT !== undefined && env.PORT !== 0 && env.PORT === env.SANDBOX_PORT) {
    problems.push(`SANDBOX_PORT must differ from PORT (both ${env.PORT}): the embedded sandbox needs its own port`);
  }
  return problems;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" (docker-compose and CI often pass VAR= for absent values).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const problems: string[] = [];
  const invalid = new Set<string>();
  if (present.GATEWAY_API_KEYS_FILE) {
    if (present.GATEWAY_API_KEYS) problems.push('set GATEWAY_API_KEYS or GATEWAY_API_KEYS_FILE, not both');
    else {
      try {
        present.GATEWAY_API_KEYS = readFileSync(present.GATEWAY_API_KEYS_FILE, 'utf8');
      } catch {
        problems.push(`GATEWAY_API_KEYS_FILE ${present.GATEWAY_API_KEYS_FILE} cannot be read`);
        invalid.add('GATEWAY_API_KEYS');
      }
    }
  }
  const parsed = configSchema.safeParse(present);
  const issues = parsed.success ? [] : parsed.error.issues;
  problems.push(...issues.map((issue) => `${issue.path.join('.') || 'environment'} ${issue.message}`));
  for (const issue of issues) invalid.add(String(issue.path[0]));
  const values: FieldValues = parsed.success ? { ...parsed.data, invalid } : { ...validFields(present, invalid), invalid };
  problems.push(...crossFieldProblems(values));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return { ...parsed.data, LIVE_LEASE_MS: parsed.data.LIVE_LEASE_MS ?? 3 * parsed.data.POLL_INTERVAL_MS };
}

/** Each variable parsed on its own, leaving out the invalid ones, for the rules between variables. */
function validFields(present: Record<string, string | undefined>, invalid: ReadonlySet<string>): Partial<Config> {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    if (invalid.has(name)) continue;
    const result = field.safeParse(present[name]);
    if (result.success) values[name] = result.data;
  }
  return values as Partial<Config>;
}

/** Whether GraphiQL is served: on by default outside production. */
export function graphiqlEnabled(config: Config): boolean {
  return config.GRAPHIQL ?? config.NODE_ENV !== 'production';
}

/** Whether introspection and field suggestions are served: on by default outside production. */
export function introspectionEnabled(config: Config): boolean {
  return config.INTROSPECTION ?? config.NODE_ENV !== 'production';
}
