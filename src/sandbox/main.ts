// `npm run sandbox`: the sandbox alone, for curl and for pointing a gateway at it by hand.
import { z } from 'zod';
import { startSandbox } from './index.js';

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

const parsed = envSchema.safeParse(process.env);
if (!parsed.success) {
  console.error('sandbox: invalid configuration');
  for (const issue of parsed.error.issues) console.error(`  ${issue.path.join('.')}: ${issue.message}`);
  process.exit(1);
}
const env = parsed.data;
const balance = env.SANDBOX_BALANCE_CENTS;

const sandbox = await startSandbox({
  port: env.SANDBOX_PORT,
  host: env.SANDBOX_HOST,
  latencyMs: env.SANDBOX_LATENCY_MS,
  ...(env.SANDBOX_TOKEN ? { token: env.SANDBOX_TOKEN } : {}),
  ...(balance !== undefined ? { balances: { USD: balance, CAD: balance, AUD: balance } } : {}),
});

console.log(`reward API sandbox listening
  base URL: ${sandbox.baseUrl}
  token:    ${sandbox.token}${env.SANDBOX_TOKEN ? ' (from SANDBOX_TOKEN)' : ' (random; set SANDBOX_TOKEN to fix it)'}
  control:  ${sandbox.origin}/__sandbox/ (no token)

try:
  curl -H 'Authorization: Bearer ${sandbox.token}' ${sandbox.baseUrl}/ping`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\nsandbox: ${signal}, shutting down`);
  void sandbox.close().then(() => process.exit(0));
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
