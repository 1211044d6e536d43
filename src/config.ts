import { z } from 'zod';

// Every environment variable the gateway reads, in one schema, so a misconfiguration fails at start-up with
// every problem listed at once rather than at the first request.

const port = z.coerce.number().int().min(0).max(65_535);
const positiveMs = z.coerce.number().int().positive();
const count = z.coerce.number().int().positive();
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
    UPSTREAM_RETRY_ATTEMPTS: count.default(4),
    UPSTREAM_RETRY_BASE_MS: positiveMs.default(100),
    UPSTREAM_RETRY_MAX_DELAY_MS: positiveMs.default(2_000),
    UPSTREAM_RETRY_BUDGET_MS: positiveMs.default(15_000),
    /** How long brand details and regions stay cached process-wide; the catalog changes rarely. */
    CATALOG_CACHE_TTL_MS: z.coerce.number().int().min(0).default(300_000),
    /** How long /ready trusts its last upstream ping. */
    READY_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
    /** Embedded sandbox port when REWARD_API_URL is unset. */
    SANDBOX_PORT: port.default(4010),
    GRAPHIQL: flag.optional(),
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
