import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { apiKeysSchema } from './security/api-keys.js';

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
const flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: port.default(4000),
    /** Interface to bind; loopback unless set (production deployments set 0.0.0.0 explicitly). */
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Base of the reward API including /papi/v1. Unset: `npm start` embeds the sandbox. */
    REWARD_API_URL: z.url({ protocol: /^https?$/ }).optional(),
    REWARD_API_TOKEN: z.string().min(1).optional(),
    UPSTREAM_TIMEOUT_MS: positiveMs.default(10_000),
    UPSTREAM_CONNECTIONS: count.default(16),
    UPSTREAM_MAX_IN_FLIGHT: count.default(32),
    UPSTREAM_QUEUE_TIMEOUT_MS: positiveMs.default(5_000),
    /** Requests waiting for an upstream slot, all keys together; beyond it GATEWAY_OVERLOADED at once. */
    UPSTREAM_QUEUE_MAX: count.default(512),
    /** The part of UPSTREAM_MAX_IN_FLIGHT (and of the queue) one API key may hold, so others keep theirs. */
    UPSTREAM_KEY_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
    // Six attempts: with 10% upstream 5xx a create still succeeds all but once in a million (the budget bounds the wait).
    UPSTREAM_RETRY_ATTEMPTS: count.default(6),
    UPSTREAM_RETRY_BASE_MS: positiveMs.default(100),
    UPSTREAM_RETRY_MAX_DELAY_MS: positiveMs.default(2_000),
    UPSTREAM_RETRY_BUDGET_MS: positiveMs.default(15_000),
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
      .transform((list) => list.split(',').map((o) => o.trim()).filter(Boolean))
      .pipe(z.array(z.url()))
      .optional(),
    /** Introspection (and field suggestions): on outside production unless set. */
    INTROSPECTION: flag.optional(),
    /** How often each subscription poller asks the upstream, which has no webhooks. */
    POLL_INTERVAL_MS: positiveMs.default(5_000),
    /** The lowest POLL_INTERVAL_MS accepted, protecting the upstream from a typo; tests lower it to run fast. */
    POLL_INTERVAL_FLOOR_MS: positiveMs.default(1_000),
  })
  .superRefine((env, ctx) => {
    if (env.POLL_INTERVAL_MS < env.POLL_INTERVAL_FLOOR_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['POLL_INTERVAL_MS'],
        message: `must be at least POLL_INTERVAL_FLOOR_MS (${env.POLL_INTERVAL_FLOOR_MS})`,
      });
    }
    if (env.REWARD_API_URL && !env.REWARD_API_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['REWARD_API_TOKEN'],
        message: 'is required when REWARD_API_URL is set',
      });
    }
    if (env.NODE_ENV === 'production' && !env.GATEWAY_API_KEYS?.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['GATEWAY_API_KEYS'],
        message: 'is required in production (or GATEWAY_API_KEYS_FILE): the gateway spends real money',
      });
    }
    if (env.NODE_ENV === 'production' && !env.REWARD_API_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['REWARD_API_URL'],
        message: 'is required in production (the embedded sandbox is for development only)',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" (docker-compose and CI often pass VAR= for absent values).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  if (present.GATEWAY_API_KEYS_FILE) {
    if (present.GATEWAY_API_KEYS) throw new ConfigError(['set GATEWAY_API_KEYS or GATEWAY_API_KEYS_FILE, not both']);
    try {
      present.GATEWAY_API_KEYS = readFileSync(present.GATEWAY_API_KEYS_FILE, 'utf8');
    } catch {
      throw new ConfigError([`GATEWAY_API_KEYS_FILE ${present.GATEWAY_API_KEYS_FILE} cannot be read`]);
    }
  }
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'} ${issue.message}`),
    );
  }
  return parsed.data;
}

/** Whether GraphiQL is served: on by default outside production. */
export function graphiqlEnabled(config: Config): boolean {
  return config.GRAPHIQL ?? config.NODE_ENV !== 'production';
}

/** Whether introspection and field suggestions are served: on by default outside production. */
export function introspectionEnabled(config: Config): boolean {
  return config.INTROSPECTION ?? config.NODE_ENV !== 'production';
}
