// The environment of `npm run sandbox`, checked with zod so a typo fails at start with a message per variable.
import { z } from 'zod';
import type { SandboxOptions } from './index.js';

const intFromEnv = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

const envSchema = z.object({
  SANDBOX_PORT: intFromEnv('SANDBOX_PORT', 0, 65_535).default(4010),
  SANDBOX_HOST: z.string().min(1, 'SANDBOX_HOST must not be empty').default('127.0.0.1'),
  SANDBOX_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{8,}$/, 'SANDBOX_TOKEN must be at least 8 printable characters without spaces')
    .optional(),
  SANDBOX_LATENCY_MS: intFromEnv('SANDBOX_LATENCY_MS', 0, 60_000).default(0),
  SANDBOX_BALANCE_CENTS: intFromEnv('SANDBOX_BALANCE_CENTS', 0, Number.MAX_SAFE_INTEGER).optional(),
});

export type SandboxEnvResult = { ok: true; options: SandboxOptions; fixedToken: boolean } | { ok: false; errors: string[] };

export function sandboxOptionsFromEnv(env: Record<string, string | undefined>): SandboxEnvResult {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
  const e = parsed.data;
  const balance = e.SANDBOX_BALANCE_CENTS;
  return {
    ok: true,
    fixedToken: e.SANDBOX_TOKEN !== undefined,
    options: {
      port: e.SANDBOX_PORT,
      host: e.SANDBOX_HOST,
      latencyMs: e.SANDBOX_LATENCY_MS,
      ...(e.SANDBOX_TOKEN !== undefined ? { token: e.SANDBOX_TOKEN } : {}),
      ...(balance !== undefined ? { balances: { USD: balance, CAD: balance, AUD: balance } } : {}),
    },
  };
}
