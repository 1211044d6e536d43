import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../support/config-problems.js';
import { KEYS_ENV } from '../security/keys.js';
import { gatewayCommand } from '../support/gateway-process.js';

// What a newcomer sees when `npm start` cannot start: every configuration problem at once, and a busy port
// named by the variable to change, in one line on stderr without a stack trace, with a non-zero exit.

const root = fileURLToPath(new URL('../../', import.meta.url));

function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, args] = gatewayCommand();
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '0',
      SANDBOX_PORT: '0',
      REWARD_API_URL: '',
      REWARD_API_TOKEN: '',
      GATEWAY_API_KEYS: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // A gateway that did come up despite the conflict would keep running: stop it so the test fails, not hangs.
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('configuration errors', () => {
  it('lists every missing production variable at once, the token included', () => {
    const problems = configProblems({ NODE_ENV: 'production' }).join('\n');
    expect(problems).toMatch(/GATEWAY_API_KEYS is required/);
    expect(problems).toMatch(/REWARD_API_URL is required/);
    expect(problems).toMatch(/REWARD_API_TOKEN is required/);
  });

  it('reports invalid values together with the rules between variables', () => {
    const problems = configProblems({ NODE_ENV: 'production', PORT: 'eighty', POLL_INTERVAL_MS: '10', MAX_DEPTH: '-1' });
    expect(problems.join('\n')).toMatch(/^PORT /m);
    expect(problems.join('\n')).toMatch(/^MAX_DEPTH /m);
    expect(problems.join('\n')).toMatch(/POLL_INTERVAL_MS must be at least POLL_INTERVAL_FLOOR_MS/);
    expect(problems.join('\n')).toMatch(/GATEWAY_API_KEYS is required/);
    expect(problems.join('\n')).toMatch(/REWARD_API_URL is required/);
    expect(problems.join('\n')).toMatch(/REWARD_API_TOKEN is required/);
  });

  it('does not call an invalid variable missing', () => {
    const problems = configProblems({ NODE_ENV: 'production', REWARD_API_URL: 'ftp://x', REWARD_API_TOKEN: 't', GATEWAY_API_KEYS: '{not json' });
    expect(problems.filter((p) => p.startsWith('REWARD_API_URL'))).toHaveLength(1);
    expect(problems.filter((p) => p.startsWith('GATEWAY_API_KEYS'))).toEqual(['GATEWAY_API_KEYS is not valid JSON']);
  });

  it('refuses the same port for the gateway and its embedded sandbox', () => {
    expect(configProblems({ PORT: '4010' }).join('\n')).toMatch(/SANDBOX_PORT must differ from PORT/);
    expect(configProblems({ PORT: '4010', REWARD_API_URL: 'https://api.example.com/papi/v1', REWARD_API_TOKEN: 't' })).toEqual([]);
  });

  it('refuses a headers timeout longer than the request timeout it is part of', () => {
    expect(configProblems({ HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' }).join('\n')).toMatch(
      /HTTP_HEADERS_TIMEOUT_MS must be at most HTTP_REQUEST_TIMEOUT_MS \(30000\)/,
    );
    expect(configProblems({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toEqual([]);
  });

  it('reads the API keys from GATEWAY_API_KEYS_FILE, and names the file it cannot read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    try {
      const file = join(dir, 'keys.json');
      writeFileSync(file, KEYS_ENV.GATEWAY_API_KEYS);
      expect(loadConfig({ GATEWAY_API_KEYS_FILE: file }).GATEWAY_API_KEYS?.map((k) => k.name)).toEqual([
        'dashboard',
        'ordering',
        'finance-view',
        'treasury',
      ]);
      expect(configProblems({ GATEWAY_API_KEYS_FILE: file, ...KEYS_ENV })).toEqual(['set GATEWAY_API_KEYS or GATEWAY_API_KEYS_FILE, not both']);
      const missing = join(dir, 'absent.json');
      // Named but unreadable is one problem, not also "required".
      expect(configProblems({ NODE_ENV: 'production', GATEWAY_API_KEYS_FILE: missing }).filter((p) => p.includes('GATEWAY_API_KEYS'))).toEqual([
        `GATEWAY_API_KEYS_FILE ${missing} cannot be read`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leases last three poll intervals unless set, and longer than one', () => {
    expect(loadConfig({ POLL_INTERVAL_MS: '2000' }).LIVE_LEASE_MS).toBe(6_000);
    expect(loadConfig({ LIVE_LEASE_MS: '2500', POLL_INTERVAL_MS: '2000' }).LIVE_LEASE_MS).toBe(2_500);
    expect(configProblems({ LIVE_LEASE_MS: '2000', POLL_INTERVAL_MS: '2000' })).toEqual([
      'LIVE_LEASE_MS must be longer than POLL_INTERVAL_MS (2000), or leases lapse between renewals',
    ]);
  });

  it('cluster mode takes exactly one form of Redis: two at once name both', () => {
    const both = 'set only one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES, not REDIS_URL and REDIS_CLUSTER_NODES';
    expect(configProblems({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).toEqual([both]);
    expect(configProblems({ REDIS_SENTINELS: '10.0.0.1:26379' })).toEqual(['REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS']);
    expect(configProblems({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2' }).join('\n')).toMatch(
      /^REDIS_CLUSTER_NODES must be comma-separated host:port pairs/,
    );
    expect(configProblems({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PASSWORD: 'secret-pass' })).toEqual([
      'REDIS_PASSWORD is for REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL put it in the URL',
    ]);
    expect(configProblems({ REDIS_KEY_PREFIX: 'rg{1}:' }).join('\n')).toMatch(/^REDIS_KEY_PREFIX must not contain \{ or \}/);
    const config = loadConfig({ REDIS_SENTINELS: 'a.example:26379, [::1]:26380', REDIS_SENTINEL_MASTER: 'main', REDIS_TLS: 'true' });
    expect(config.REDIS_SENTINELS).toEqual([
      { host: 'a.example', port: 26379 },
      { host: '::1', port: 26380 },
    ]);
    expect(config.REDIS_TLS).toBe(true);
  });

  it('REDIS_SENTINELS and REDIS_CLUSTER_NODES together: npm start names both, without a stack, and exits 1', { timeout: 90_000 }, async () => {
    const run = await start({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'main', REDIS_CLUSTER_NODES: '127.0.0.1:7000' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('set only one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES, not REDIS_SENTINELS and REDIS_CLUSTER_NODES');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('NODE_ENV=production npm start prints all three problems in one go and exits 1', { timeout: 90_000 }, async () => {
    const run = await start({ NODE_ENV: 'production' });
    expect(run.code).toBe(1);
    for (const name of ['GATEWAY_API_KEYS', 'REWARD_API_URL', 'REWARD_API_TOKEN']) expect(run.stderr).toContain(`${name} is required`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.concurrent('a busy port', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  for (const variable of ['PORT', 'SANDBOX_PORT']) {
    it(`${variable}: one line naming ${variable}, no stack, exit 1`, { timeout: 90_000 }, async () => {
      const run = await start({ [variable]: String(port) });
      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toEqual([
        `Cannot listen: port ${port} is already in use. Set ${variable} to a free port (or 0 for any free port) and start again.`,
      ]);
      expect(run.stdout).not.toMatch(/EADDRINUSE|WebSocket/);
    });
  }
});
