import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { apiKeysSchema } from './security/api-keys.js';
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
  /** Requests waiting for an upstream slot, all keys together; beyond it GATEWAY_OVERLOADED at once. */
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
