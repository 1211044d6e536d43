// `npm run sandbox`: configuration from the environment, the banner, and a clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sandboxOptionsFromEnv } from '../../src/sandbox/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function runMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = () => ({ stdout, stderr });
  return { child, exited, output };
}

// Starting Node + tsx under load can take tens of seconds: a generous budget, no clock assertions.
describe.concurrent('sandbox main', { timeout: 90_000 }, () => {
  it('starts from the environment, prints base URL, token and a curl, serves, and stops on SIGTERM', async () => {
    const run = runMain({ SANDBOX_PORT: '0', SANDBOX_TOKEN: 'main-test-token', SANDBOX_BALANCE_CENTS: '4242', SANDBOX_LATENCY_MS: '0' });
    const baseUrl = await new Promise<string>((resolve, reject) => {
      run.child.stdout.on('data', () => {
        const m = /base URL: (\S+)/.exec(run.output().stdout);
        if (m && run.output().stdout.includes('curl')) resolve(m[1]!);
      });
      run.exited.then(() => reject(new Error(`exited early: ${JSON.stringify(run.output())}`)));
    });
    const { stdout } = run.output();
    expect(stdout).toContain('token:    main-test-token');
    expect(stdout).toContain(`curl -H 'Authorization: Bearer main-test-token' ${baseUrl}/ping`);
    const funds = await fetch(`${baseUrl}/funds`, { headers: { authorization: 'Bearer main-test-token' } });
    expect(((await funds.json()) as any).fundsbycurrency.AUD.available_in_cents).toBe(4242);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('exits 1 with the configuration errors', async () => {
    const run = runMain({ SANDBOX_PORT: '70000' });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toContain('SANDBOX_PORT: SANDBOX_PORT must be at most 65535');
  });
});

describe('sandbox configuration', () => {
  it('defaults to port 4010 on 127.0.0.1, no latency, random token and default balances', () => {
    expect(sandboxOptionsFromEnv({})).toEqual({ ok: true, fixedToken: false, options: { port: 4010, host: '127.0.0.1', latencyMs: 0 } });
  });

  it('reads every variable', () => {
    const env = { SANDBOX_PORT: '0', SANDBOX_HOST: '0.0.0.0', SANDBOX_TOKEN: 'tok-12345', SANDBOX_LATENCY_MS: '25', SANDBOX_BALANCE_CENTS: '500' };
    expect(sandboxOptionsFromEnv(env)).toEqual({
      ok: true,
      fixedToken: true,
      options: { port: 0, host: '0.0.0.0', token: 'tok-12345', latencyMs: 25, balances: { USD: 500, CAD: 500, AUD: 500 } },
    });
  });

  it('names every invalid variable', () => {
    const result = sandboxOptionsFromEnv({
      SANDBOX_PORT: '70000',
      SANDBOX_LATENCY_MS: 'slow',
      SANDBOX_TOKEN: 'a b',
      SANDBOX_BALANCE_CENTS: '-5',
      SANDBOX_HOST: '',
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([
      'SANDBOX_PORT: SANDBOX_PORT must be at most 65535',
      'SANDBOX_HOST: SANDBOX_HOST must not be empty',
      'SANDBOX_TOKEN: SANDBOX_TOKEN must be at least 8 printable characters without spaces',
      'SANDBOX_LATENCY_MS: SANDBOX_LATENCY_MS must be a whole number',
      'SANDBOX_BALANCE_CENTS: SANDBOX_BALANCE_CENTS must be a whole number',
    ]);
  });
});
