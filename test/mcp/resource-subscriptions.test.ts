import { ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { eventually, startRedis } from '../support/cluster.js';
import { createTestGateway } from '../support/gateway.js';
import type { TestSandbox } from '../support/sandbox.js';
import { testWith } from '../support/test.js';
import { KEYS, KEYS_ENV } from '../security/keys.js';
import { auth, connectMcp, createOrder, createOrderAt, headersOf, initialize, liveQueriesOpen, message, openStream, updates } from './support.js';

// Following an order: a session that subscribes to reward://campaign/<uuid> is sent
// notifications/resources/updated on its event stream (GET /mcp) when the order changes as the pollers see it;
// the subscription is kept for the session, not the stream, so a change while no stream was open is told once
// one is.

const it = testWith({
  sandboxOptions: { balances: { USD: 100_000_000 } },
  // Pollers every 50 ms: a redemption is seen within a test's patience, driven by the sandbox's own clock.
  env: { ...KEYS_ENV, MCP_ENABLED: 'true', MCP_MAX_SUBSCRIPTIONS: '2', POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' },
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (thrown: unknown) => thrown as McpError,
  );

describe('following an order as an MCP resource', () => {
  it('a subscribed order is notified when one of its rewards is redeemed, and reads as redeemed', async ({ gateway, sandbox }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.writer));
    try {
      const told = updates(mcp);
      const { uri, gifts } = await createOrder(mcp, sandbox);
      await mcp.client.subscribeResource({ uri });
      const updated = told.next(uri);
      await sandbox.control.redeem(gifts[0]!);
      await updated;
      const read = await mcp.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text).gifts.edges[0].node.status).toBe('REDEEMED');
      expect(told.seen).toEqual([uri]);
    } finally {
      await mcp.close();
    }
  });

  it('a change made while no stream was open is told once one is, to that session only', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const { uri, gifts } = await createOrderAt(url, auth(KEYS.writer), sandbox);
    const session = await initialize(url, KEYS.reader);
    expect(await message(url, KEYS.reader, session, 'resources/subscribe', { uri })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await sandbox.control.redeem(gifts[0]!);
    // Another caller naming the same session id has a session of its own: nothing of the reader's reaches it.
    const other = openStream(url, KEYS.writer, session);
    const stream = openStream(url, KEYS.reader, session);
    try {
      expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
      expect(other.messages).toEqual([]);
    } finally {
      stream.close();
      other.close();
    }
  });

  it('unsubscribing stops the notifications and the live query; a session follows at most MCP_MAX_SUBSCRIPTIONS orders', async ({
    gateway,
    sandbox,
  }) => {
    const url = await gateway.listen();
    // The file's gateway is shared: the streams of the tests before this one end their live queries a moment
    // after their clients close them, and this test counts live queries.
    await eventually(async () => (await liveQueriesOpen(url)) === 0, 25, { ms: 10_000, what: 'the earlier tests’ live queries to end' });
    const mcp = await connectMcp(url, auth(KEYS.writer));
    try {
      const told = updates(mcp);
      const a = await createOrder(mcp, sandbox);
      const b = await createOrder(mcp, sandbox);
      const c = await createOrder(mcp, sandbox);
      await mcp.client.subscribeResource({ uri: a.uri });
      await mcp.client.subscribeResource({ uri: b.uri });
      const third = await rejection(mcp.client.subscribeResource({ uri: c.uri }));
      expect(third?.code).toBe(ErrorCode.InvalidRequest);
      expect(third?.message).toMatch(/follows 2 resources, the most MCP_MAX_SUBSCRIPTIONS allows: unsubscribe from one first/);
      await mcp.client.unsubscribeResource({ uri: a.uri });
      await mcp.client.subscribeResource({ uri: c.uri });
      // a's redemption comes first; c's notification after it proves the stream was live all along.
      await sandbox.control.redeem(a.gifts[0]!);
      const cUpdated = told.next(c.uri);
      await sandbox.control.redeem(c.gifts[0]!);
      await cUpdated;
      expect(told.seen).not.toContain(a.uri);
      // Each subscription is one live query of the caller's: b's and c's; a's ended with its subscription.
      await eventually(async () => (await liveQueriesOpen(url)) === 2, 25, { ms: 10_000, what: 'b’s and c’s live queries only' });
    } finally {
      await mcp.close();
    }
    // The stream closed with the client: its live queries end with it.
    await eventually(async () => (await liveQueriesOpen(url)) === 0, 25, { ms: 10_000, what: 'the live queries of a closed stream to end' });
  });

  it('a caller who may not read the order, an order that does not exist, and no session are refused', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const { uri } = await createOrderAt(url, auth(KEYS.writer), sandbox);
    const treasurer = await connectMcp(url, auth(KEYS.treasurer));
    const reader = await connectMcp(url, auth(KEYS.reader));
    try {
      const forbidden = await rejection(treasurer.client.subscribeResource({ uri }));
      expect(forbidden?.code).toBe(ErrorCode.InvalidRequest);
      expect(forbidden?.message).toMatch(/may not use the tool GetOrder: it needs the scope rewards:read/);
      const missing = await rejection(reader.client.subscribeResource({ uri: 'reward://campaign/00000000-0000-4000-8000-000000000000' }));
      expect(missing?.code).toBe(-32002);
      expect(await sandbox.control.stats()).toBeDefined();
    } finally {
      await treasurer.close();
      await reader.close();
    }
    // Without the session initialize handed out, there is no stream to notify: the answer says what to send.
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: auth(KEYS.reader) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri } }),
    });
    const body = await res.json();
    expect(body.error.message).toMatch(/Subscribing needs a session: send the Mcp-Session-Id header/);
  });

  it('a session holds one stream: a second one takes over, the first ends, and each change is told once', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const { uri, gifts } = await createOrderAt(url, auth(KEYS.writer), sandbox);
    const session = await initialize(url, KEYS.reader);
    expect(await message(url, KEYS.reader, session, 'resources/subscribe', { uri })).toMatchObject({ result: {} });
    const first = openStream(url, KEYS.reader, session);
    // Another caller naming the same id has a session of its own: its stream takes nothing over.
    const other = openStream(url, KEYS.writer, session);
    await eventually(() => first.status() === 200 && other.status() === 200);
    const second = openStream(url, KEYS.reader, session);
    try {
      // MCP's transport: a message is sent on one of a session's streams, never broadcast on several.
      await first.ended;
      await sandbox.control.redeem(gifts[0]!);
      expect(await second.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
      expect(first.messages).toEqual([]);
      expect(await Promise.race([other.ended.then(() => 'ended'), Promise.resolve('open')])).toBe('open');
    } finally {
      first.close();
      second.close();
      other.close();
    }
  });

  it('initialize hands out a session; the stream needs it, and another caller cannot use it', async ({ gateway }) => {
    const url = await gateway.listen();
    const init = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: auth(KEYS.reader) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id');
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect((await init.json()).result.capabilities.resources).toEqual({ subscribe: true, listChanged: false });

    const get = (headers: Record<string, string>) => fetch(`${url}/mcp`, { headers: { accept: 'text/event-stream', ...headers } });
    const noSession = await get({ authorization: auth(KEYS.reader) });
    expect(noSession.status).toBe(400);
    expect((await noSession.json()).error.message).toMatch(/Send the Mcp-Session-Id header/);
    const notOurs = await get({ authorization: auth(KEYS.reader), 'mcp-session-id': 'abc' });
    expect(notOurs.status).toBe(404);
    // MCP's transport: a version the server does not speak is a 400, on the stream and the session's end as on a POST.
    for (const method of ['GET', 'DELETE']) {
      const unsupported = await fetch(`${url}/mcp`, {
        method,
        headers: { accept: 'text/event-stream', authorization: auth(KEYS.reader), 'mcp-session-id': session!, 'mcp-protocol-version': '1999-01-01' },
      });
      expect(unsupported.status).toBe(400);
      expect((await unsupported.json()).error.message).toMatch(/^Unsupported MCP-Protocol-Version 1999-01-01: this server speaks 2025-11-25, /);
    }
    const end = () =>
      fetch(`${url}/mcp`, {
        method: 'DELETE',
        headers: { authorization: auth(KEYS.reader), 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' },
      });
    expect((await end()).status).toBe(204);
    // MCP: a request naming an ended session is a 404, and the client initializes again.
    const afterEnd = [await end(), await get({ authorization: auth(KEYS.reader), 'mcp-session-id': session! })];
    afterEnd.push(
      await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...headersOf(KEYS.reader, session!), 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/list' }),
      }),
    );
    for (const refused of afterEnd) {
      expect(refused.status).toBe(404);
      expect((await refused.json()).error).toEqual({
        code: -32001,
        message: 'This session was ended (DELETE /mcp): initialize again without Mcp-Session-Id.',
      });
    }
  });
});

/**
 * Replicas over one sandbox and one Redis, as a deployment has them, listening, and an order made through the
 * last of them; `close` stops them all.
 */
async function replicasOnRedis(sandbox: TestSandbox, redisUrl: string, count: number, env: Record<string, string> = {}) {
  const shared = { ...KEYS_ENV, MCP_ENABLED: 'true', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `mcp-${uniqueId('p')}:`, ...env };
  const replicas = Array.from({ length: count }, () => createTestGateway(sandbox, { env: shared }));
  const close = async () => {
    for (const replica of replicas) await replica.close();
  };
  try {
    const urls: string[] = [];
    for (const replica of replicas) urls.push(await replica.listen());
    return { urls, ...(await createOrderAt(urls.at(-1)!, auth(KEYS.writer), sandbox)), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Pollers every 50 ms: a redemption is seen within a test's patience. */
const FAST_POLLS = { POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' };

describe('following an order across replicas (cluster mode)', () => {
  it('a subscription made through one replica is told on the stream another holds; Redis keeps it for the session', async ({ sandbox, redis }) => {
    const cluster = await replicasOnRedis(sandbox, redis.url, 2, FAST_POLLS);
    try {
      const [urlA, urlB] = cluster.urls as [string, string];
      const { uri, gifts } = cluster;
      const session = await initialize(urlA, KEYS.reader);
      const stream = openStream(urlA, KEYS.reader, session);
      try {
        // The stream is open on A before B takes the subscription: A learns of it from Redis's channel.
        expect(await message(urlB, KEYS.reader, session, 'resources/subscribe', { uri })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
        await eventually(async () => (await liveQueriesOpen(urlA)) === 1, 25, { ms: 10_000, what: 'replica A to follow the order' });
        await sandbox.control.redeem(gifts[0]!);
        expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
        expect(await liveQueriesOpen(urlB)).toBe(0);
      } finally {
        stream.close();
      }
      // Ended through B, the session's subscriptions are gone for A too, and A refuses the session as ended.
      expect((await fetch(`${urlB}/mcp`, { method: 'DELETE', headers: headersOf(KEYS.reader, session) })).status).toBe(204);
      await eventually(async () => (await liveQueriesOpen(urlA)) === 0, 25, { ms: 10_000, what: 'the ended session to follow nothing' });
      const reopened = await fetch(`${urlA}/mcp`, { headers: { ...headersOf(KEYS.reader, session), accept: 'text/event-stream' } });
      expect(reopened.status).toBe(404);
      expect((await reopened.json()).error.message).toBe('This session was ended (DELETE /mcp): initialize again without Mcp-Session-Id.');
      // The same id is another session for another caller: ended for this one only.
      expect(await message(urlA, KEYS.writer, session, 'resources/list', {})).toMatchObject({ result: expect.anything() });
    } finally {
      await cluster.close();
    }
  });
  it('a stream opened on another replica takes the session over: the first ends, the change is told on the new one only', async ({
    sandbox,
    redis,
  }) => {
    const cluster = await replicasOnRedis(sandbox, redis.url, 2, FAST_POLLS);
    try {
      const [urlA, urlB] = cluster.urls as [string, string];
      const { uri, gifts } = cluster;
      const session = await initialize(urlA, KEYS.reader);
      expect(await message(urlA, KEYS.reader, session, 'resources/subscribe', { uri })).toMatchObject({ result: {} });
      const first = openStream(urlA, KEYS.reader, session);
      await eventually(async () => (await liveQueriesOpen(urlA)) === 1, 25, { ms: 10_000, what: 'replica A to follow the order' });
      const second = openStream(urlB, KEYS.reader, session);
      try {
        await first.ended;
        await eventually(async () => (await liveQueriesOpen(urlB)) === 1, 25, { ms: 10_000, what: 'replica B to follow the order' });
        await sandbox.control.redeem(gifts[0]!);
        expect(await second.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
        expect(first.messages).toEqual([]);
        await eventually(async () => (await liveQueriesOpen(urlA)) === 0, 25, { ms: 10_000, what: 'replica A to follow nothing' });
      } finally {
        first.close();
        second.close();
      }
    } finally {
      await cluster.close();
    }
  });

  it('after Redis restarts empty, a newer stream still takes the session over', async ({ sandbox }) => {
    // A Redis of its own: this test restarts it.
    const redis = await startRedis();
    const cluster = await replicasOnRedis(sandbox, redis.url, 1);
    try {
      const [url] = cluster.urls as [string];
      const { uri } = cluster;
      const session = await initialize(url, KEYS.reader);
      expect(await message(url, KEYS.reader, session, 'resources/subscribe', { uri })).toMatchObject({ result: {} });
      const first = openStream(url, KEYS.reader, session);
      await eventually(async () => (await liveQueriesOpen(url)) === 1, 25, { ms: 10_000, what: 'the stream to follow the order' });
      await redis.stop();
      await redis.start();
      // Redis lost the subscription: the client subscribes again once it answers, then opens a stream anew.
      await eventually(async () => ((await message(url, KEYS.reader, session, 'resources/subscribe', { uri })) as any).result !== undefined, 50, {
        ms: 10_000,
        what: 'Redis to answer again',
      });
      const second = openStream(url, KEYS.reader, session);
      try {
        await first.ended;
        expect(second.status()).toBe(200);
      } finally {
        first.close();
        second.close();
      }
    } finally {
      await cluster.close();
      await redis.stop();
    }
  });

  it('after Redis restarts empty, an open stream writes back what its session followed: the next change is told with no new subscribe', async ({
    sandbox,
  }) => {
    // A Redis of its own: this test restarts it.
    const redis = await startRedis();
    const cluster = await replicasOnRedis(sandbox, redis.url, 1, FAST_POLLS);
    const reader = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const [url] = cluster.urls as [string];
      const { uri, gifts } = cluster;
      const session = await initialize(url, KEYS.reader);
      expect(await message(url, KEYS.reader, session, 'resources/subscribe', { uri })).toMatchObject({ result: {} });
      const stream = openStream(url, KEYS.reader, session);
      try {
        await eventually(async () => (await liveQueriesOpen(url)) === 1, 25, { ms: 10_000, what: 'the stream to follow the order' });
        await redis.stop();
        await redis.start();
        // The session's subscriptions are back in Redis, written by the stream (nobody subscribed again).
        const restored = async () => {
          const [, keys] = await reader.scan('0', 'MATCH', '*:subs', 'COUNT', 1000);
          return keys.length === 1 && (await reader.hkeys(keys[0]!)).includes(uri);
        };
        await eventually(() => restored().catch(() => false), 50, { ms: 10_000, what: 'the stream to write its subscriptions back' });
        await sandbox.control.redeem(gifts[0]!);
        expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
        expect(await liveQueriesOpen(url)).toBe(1);
      } finally {
        stream.close();
      }
    } finally {
      reader.disconnect();
      await cluster.close();
      await redis.stop();
    }
  });

  it('while Redis hangs, subscribing fails saying to subscribe again; once Redis answers, the unanswered DELETE has ended the session, and a new one subscribes', async ({
    sandbox,
    redis,
  }) => {
    const cluster = await replicasOnRedis(sandbox, redis.url, 1, { REDIS_COMMAND_TIMEOUT_MS: '200' });
    try {
      const [url] = cluster.urls as [string];
      const { uri } = cluster;
      const session = await initialize(url, KEYS.reader);
      await redis.signal('SIGSTOP');
      let answer: any;
      let unsubscribed: any;
      let ended: Response;
      try {
        answer = await message(url, KEYS.reader, session, 'resources/subscribe', { uri });
        unsubscribed = await message(url, KEYS.reader, session, 'resources/unsubscribe', { uri });
        ended = await fetch(`${url}/mcp`, { method: 'DELETE', headers: headersOf(KEYS.reader, session) });
      } finally {
        await redis.signal('SIGCONT');
      }
      expect(answer.error.message).toMatch(/The shared store of subscriptions \(Redis\) does not answer now: subscribe again shortly\.$/);
      // Unsubscribing and ending the session say the same, each naming what to do again.
      expect(unsubscribed.error.message).toMatch(/The shared store of subscriptions \(Redis\) does not answer now: unsubscribe again shortly\.$/);
      expect(ended.status).toBe(503);
      expect(ended.headers.get('retry-after')).toBe('1');
      expect((await ended.json()).error.message).toMatch(
        /The shared store of subscriptions \(Redis\) does not answer now: end the session \(DELETE\) again shortly\.$/,
      );
      // The DELETE that got no answer reached Redis, which ran it once it answered (all of it: one script), so the
      // session ended after all, as a DELETE sent again says (a 404); the client starts a new session, where
      // subscribing works again.
      await eventually(async () => (await fetch(`${url}/mcp`, { method: 'DELETE', headers: headersOf(KEYS.reader, session) })).status === 404, 50);
      const fresh = await initialize(url, KEYS.reader);
      await eventually(async () => {
        const again: any = await message(url, KEYS.reader, fresh, 'resources/subscribe', { uri });
        return again.result !== undefined;
      }, 50);
    } finally {
      await cluster.close();
    }
  });
});
