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

/** Holds this process's event loop for `ms`, as a long GC pause or a starved CPU does. */
function stallLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('a command whose answer came while the replica’s own event loop was held', () => {
  // Redis answered at once, but the replica could not read the answer before its command timer was due: the
  // timer is not evidence that Redis hung. Taken for a hang, it failed the command and counted Redis as down,
  // and the cluster's upstream budget, which lets an attempt out when Redis does not answer, sent twice its
  // rate on a loaded machine (test/upstream/shared-budget.test.ts: 31 in 2.2 s against one bucket's 16).
  it('is answered, and Redis still counts as up', async ({ redis }) => {
    const COMMAND_TIMEOUT_MS = 200;
    const connection = connectRedis({ target: { url: redis.url }, prefix: `stall-${Date.now()}:`, commandTimeoutMs: COMMAND_TIMEOUT_MS });
    try {
      expect(await connection.connected(5_000)).toBe(true);
      const changes: boolean[] = [];
      connection.onStateChange((up) => changes.push(up));
      const key = connection.keys.tagged('stall', 'probe');
      await connection.guard(connection.client.set(key, 'answered'));
      const answer = connection.guard(connection.client.get(key));
      stallLoop(COMMAND_TIMEOUT_MS * 3);
      expect(await answer).toBe('answered');
      expect(connection.healthy).toBe(true);
      expect(changes).toEqual([]);
    } finally {
      connection.close();
    }
  });
});
