import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configProblems } from '../support/config-problems.js';

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
      expect(configProblems({ TRUSTED_DOCUMENTS: broken })).toEqual([expect.stringMatching(/^TRUSTED_DOCUMENTS .* is not JSON/)]);
      const list = join(dir, 'list.json');
      writeFileSync(list, '["query { a }"]');
      expect(configProblems({ TRUSTED_DOCUMENTS: list })).toEqual([
        expect.stringMatching(/^TRUSTED_DOCUMENTS .* must be a non-empty JSON object of hash → document/),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm start with PORT=abc prints one line and exits 1', { timeout: 90_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'development', PORT: 'abc', SANDBOX_PORT: '0', REWARD_API_URL: '', GATEWAY_API_KEYS: '', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual(['Invalid configuration: PORT must be an integer from 1 to 65535 (0 lets the system pick a free one)']);
  });
});
