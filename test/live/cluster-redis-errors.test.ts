import { Redis } from 'ioredis';
import { afterAll, describe, expect } from 'vitest';
import { connectRedis } from '../../src/cluster/redis.js';
import { createLogger } from '../../src/ops/logger.js';
import { test as it } from '../support/test.js';

// A Redis command that fails must not carry what it was writing into the logs: ioredis attaches the command with
// its arguments to its errors (cached answers, persisted documents, a webhook endpoint with its signing secret),
// and the log's error serializer copies every property of an error.

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
let admin: Redis | undefined;

afterAll(async () => {
  await admin?.config('SET', 'maxmemory', '0');
  admin?.disconnect();
});

describe('a failed Redis command', () => {
  it('reaches callers and logs without the values it was writing', async ({ redis }) => {
    const connection = connectRedis({ target: { url: redis.url }, prefix: `errors-${Date.now()}:`, commandTimeoutMs: 2_000 });
    try {
      expect(await connection.connected(5_000)).toBe(true);
      admin = new Redis(redis.url);
      // Redis refuses every write once it is over its memory limit (OOM): a real failure, not a mocked one.
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      const failed = await connection
        .guard(connection.client.set(connection.keys.tagged('webhook:1', 'endpoint'), JSON.stringify({ secret: SECRET })))
        .then(
          () => null,
          (error: unknown) => error as Error,
        );
      expect(failed?.message).toMatch(/OOM/);
      expect(failed).not.toHaveProperty('command');

      const lines: string[] = [];
      createLogger({ level: 'error', destination: { write: (line: string) => void lines.push(line) } }).error({ err: failed }, 'unexpected error');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('OOM');
      expect(lines[0]).not.toContain(SECRET);
    } finally {
      await admin?.config('SET', 'maxmemory', '0');
      connection.close();
    }
  });

  it('and a webhook secret that reaches a log line some other way is blanked by its form', () => {
    const lines: string[] = [];
    createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } }).info({ body: `signed with ${SECRET}` }, 'note');
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).toContain('whsec_[redacted]');
  });
});
