import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { configProblems } from '../support/config-problems.js';
import { gatewayCommand } from '../support/gateway-process.js';

// Start-up mistakes a newcomer makes: one line naming the variable and what it must be, exit 1, no stack trace.

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('start-up messages', () => {
  it('PORT must be an integer from 1 to 65535', () => {
    for (const value of ['abc', '70000', '80.5'])
      expect(configProblems({ PORT: value })).toEqual([expect.stringMatching(/^PORT must be an integer from 1 to 65535/)]);
  });

  it('REDIS_URL must be redis:// or rediss://', () => {
    for (const value of ['http://127.0.0.1:6379', 'localhost:6379']) {
      expect(configProblems({ REDIS_URL: value })).toEqual([expect.stringMatching(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/)]);
    }
    expect(configProblems({ REDIS_URL: 'rediss://cache.example.com:6380' })).toEqual([]);
  });

  it('TRUSTED_DOCUMENTS must be a readable manifest of hash → document', () => {
    const dir = mkdtempSync(join(tmpdir(), 'manifest-'));
    try {
      const missing = join(dir, 'absent.json');
      expect(configProblems({ TRUSTED_DOCUMENTS: missing })).toEqual([
        `TRUSTED_DOCUMENTS ${missing} cannot be read (ENOENT): point it at the manifest \`npm run codegen\` writes`,
      ]);
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, '{ not json');
      expect(configProblems({ TRUSTED_DOCUMENTS: broken })).toEqual([
        expect.stringMatching(/^TRUSTED_DOCUMENTS .* is not JSON: .*as `npm run codegen` writes$/),
      ]);
      const list = join(dir, 'list.json');
      writeFileSync(list, '["query { a }"]');
      expect(configProblems({ TRUSTED_DOCUMENTS: list })).toEqual([
        expect.stringMatching(/^TRUSTED_DOCUMENTS .* must be a non-empty JSON object of hash → document/),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // As the process meets them: the gateway's own start (npm start's command), nothing else configured.
  const dir = mkdtempSync(join(tmpdir(), 'start-up-'));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{ not json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.for([
    ['PORT=abc', { PORT: 'abc' }, /^Invalid configuration: PORT must be an integer from 1 to 65535 \(0 lets the system pick a free one\)$/],
    [
      'REDIS_URL=http://…',
      { REDIS_URL: 'http://127.0.0.1:6379' },
      /^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, e.g. redis:\/\/127.0.0.1:6379$/,
    ],
    [
      'a missing TRUSTED_DOCUMENTS',
      { TRUSTED_DOCUMENTS: join(dir, 'absent.json') },
      /^Invalid configuration: TRUSTED_DOCUMENTS .* cannot be read \(ENOENT\): point it at the manifest/,
    ],
    [
      'a malformed TRUSTED_DOCUMENTS',
      { TRUSTED_DOCUMENTS: broken },
      /^Invalid configuration: TRUSTED_DOCUMENTS .* is not JSON: .*as `npm run codegen` writes$/,
    ],
  ] as const)('npm start with %s prints one line naming the variable and exits 1', { timeout: 90_000 }, async ([, env, line]) => {
    const [command, args] = gatewayCommand();
    const child = spawn(command, args, {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        PORT: '0',
        SANDBOX_PORT: '0',
        REWARD_API_URL: '',
        GATEWAY_API_KEYS: '',
        REDIS_URL: '',
        TRUSTED_DOCUMENTS: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  });
});
