import { Redis } from 'ioredis';
import { afterEach, describe, expect } from 'vitest';
import { redisMcpSubscriptions, type SubscribedResources } from '../../src/cluster/mcp-subscriptions.js';
import { connectRedis, type RedisConnection } from '../../src/cluster/redis.js';
import { eventually } from '../support/cluster.js';
import { test as it } from '../support/test.js';

// How a session's stream writes its subscriptions back when Redis lost them (restarted empty), against the file's
// own redis-server: the session's keys are deleted from under a following stream, as a restart would, and the
// stream hears of it the way it would after one (a notification makes it read again). The whole restart, with the
// gateway, is test/mcp/resource-subscriptions.test.ts's.

const URI = 'reward://campaign/0d7c2f9e-2026-11-29';
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function followed(url: string) {
  const prefix = `restore-${Date.now()}-${Math.random().toString(36).slice(2)}:`;
  const connection: RedisConnection = connectRedis({ target: { url }, prefix, commandTimeoutMs: 2_000 });
  const admin = new Redis(url);
  closers.push(
    () => connection.close(),
    () => admin.disconnect(),
  );
  expect(await connection.connected(5_000)).toBe(true);
  const records = redisMcpSubscriptions(connection);
  const session = 'caller-hash-2026-11-29';
  await records.subscribe(session, URI, 'told-v1', 20);
  const heard: SubscribedResources[] = [];
  closers.push(
    records.follow(
      session,
      (resources) => heard.push(resources),
      () => undefined,
    ),
  );
  const key = (name: string) => connection.keys.tagged(`mcp:${session}`, name);
  // Following, and numbered (its claim is in Redis).
  await eventually(async () => heard.length > 0 && (await admin.exists(key('stream'))) === 1, 10);
  /** Redis loses the session, as in a restart. */
  const lose = () => admin.del(key('subs'), key('stream'));
  return { records, session, heard, admin, key, lose };
}

describe('an MCP stream after Redis lost its session', () => {
  it('two reads at once, the second while the first restores, leave the stream following what it did', async ({ redis }) => {
    const { records, session, heard, admin, key, lose } = await followed(redis.url);
    await lose();
    // Two notifications back to back, as a reconnection and Redis answering again make: two reads in flight.
    await Promise.all([records.unsubscribe(session, 'reward://campaign/another'), records.unsubscribe(session, 'reward://campaign/yet-another')]);
    await eventually(async () => (await admin.hget(key('subs'), URI)) === 'told-v1', 10);
    await eventually(async () => (await admin.exists(key('stream'))) === 1, 10);
    // Never told it follows nothing.
    expect(heard.every((resources) => resources.has(URI))).toBe(true);
  });

  it('a session ended after Redis came back is not restored: the stream follows nothing', async ({ redis }) => {
    const { records, session, heard, admin, key, lose } = await followed(redis.url);
    await lose();
    // Ended before the stream read again; ending tells the stream, which reads then.
    await records.end(session);
    await eventually(async () => heard.at(-1)?.size === 0, 10);
    expect(await admin.exists(key('subs'))).toBe(0);
    expect(await records.ended(session)).toBe(true);
  });
});
