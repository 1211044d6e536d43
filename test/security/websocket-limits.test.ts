import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import WebSocket from 'ws';
import { createRateLimiter } from '../../src/security/rate-limit.js';
import { DEVELOPMENT_CALLER, type Caller } from '../../src/security/scopes.js';
import { createRateLimit } from '../../src/security/use-rate-limit.js';
import { attachWebSocket, type WebSocketEndpoint } from '../../src/edge/websocket.js';
import { startTestGateway } from '../support/gateway.js';
import { connected, PollWatch, subscribeWs, wsClient } from '../support/live.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// Every operation limit answers with a stable code on both transports, and over WebSocket it fails that one
// operation: the client's other subscriptions on the same socket keep running.

const deep =
  '{ campaign(ref: "x") { gifts { edges { node { campaign { gifts { edges { node { campaign { gifts { edges { node { uuid } } } } } } } } } } } } }';
const aliases = `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: regions { id }`).join(' ')} }`;
const tokens = `{ regions { ${'id '.repeat(500)} } }`;
const cost = 'query($n: Int) { gifts(first: $n) { edges { node { campaign { gifts(first: $n) { edges { node { uuid } } } } } } } }';

const LIMITS: [string, string, Record<string, unknown> | undefined, string][] = [
  ['depth', deep, undefined, 'DEPTH_LIMIT_EXCEEDED'],
  ['aliases', aliases, undefined, 'ALIAS_LIMIT_EXCEEDED'],
  ['tokens', tokens, undefined, 'TOKEN_LIMIT_EXCEEDED'],
  ['cost', cost, { n: 100 }, 'COST_LIMIT_EXCEEDED'],
];

// The file's gateway, with low limits, listening for the WebSocket tests (`url`), its polls watched (`watch`).
// `capped`, for the tests of what one caller can make the endpoint hold, has caps of its own.
const it = testWith({
  env: { ...KEYS_ENV, MAX_DEPTH: '8', MAX_ALIASES: '5', MAX_TOKENS: '400', MAX_COST: '2000', POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' },
})
  .extend('watch', { scope: 'file' }, ({ gateway }) => {
    const watch = new PollWatch();
    gateway.gateway.live.listen(watch);
    return watch;
  })
  .extend('url', { scope: 'file' }, ({ gateway }) => gateway.listen())
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('capped', { scope: 'file' }, async ({}, { onCleanup }) => {
    const capped = await startTestGateway({
      env: { ...KEYS_ENV, WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '2', WS_MAX_CONNECTIONS_PER_KEY: '2', WS_MAX_BUFFERED_BYTES: '65536' },
    });
    onCleanup(() => capped.close());
    return capped;
  });

describe('operation limits', () => {
  it.for(LIMITS)('over HTTP, %s carries a stable code', async ([, query, variables, code], { gateway }) => {
    await gateway.upstreamDelta();
    const res = await gateway.gql(query, variables, bearer(KEYS.reader));
    expect(res.body.errors?.[0]?.extensions?.code, res.text).toBe(code);
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('over WebSocket, each fails its own operation and the socket keeps serving', async ({ gateway, url, watch }) => {
    const client = wsClient(url, { connectionParams: { authorization: `Bearer ${KEYS.treasurer.key}` }, lazy: false });
    let closed = false;
    client.on('closed', () => (closed = true));
    try {
      await connected(client);
      const funds = subscribeWs(client, 'subscription { fundsChanged { funds { balances { currency } } } }');
      for (const [name, query, variables, code] of LIMITS) {
        const stream = subscribeWs(client, query, variables);
        // Refused before execution (an error message) or by the cost check at execution (a result with errors).
        const ended = await stream.ended;
        const errors = (ended === 'error' ? stream.error : stream.received[0]?.errors) as { extensions?: { code?: string } }[];
        expect(errors[0]?.extensions?.code, `${name}: ${JSON.stringify(errors)}`).toBe(code);
      }
      expect(closed).toBe(false);
      // The subscription opened before the violations still delivers: a top-up after its first poll is an event.
      await watch.until(() => watch.completed('funds') >= 1);
      await gateway.sandbox.control.topUp('USD', 50_000);
      await funds.next();
      const read = subscribeWs(client, '{ funds { balances { currency } } }');
      await read.ended;
      expect(read.received[0]?.data?.funds?.balances, JSON.stringify(read.received)).toBeInstanceOf(Array);
    } finally {
      await client.dispose();
    }
  });
});

describe('connection_init over the rate limit', () => {
  it('closes with 4429 and says when to retry (not 4403 like an unknown key)', async ({ gatewayWith }) => {
    const limited = await gatewayWith({ listen: true, env: { ...KEYS_ENV, RATE_LIMIT_PER_SECOND: '0.1', RATE_LIMIT_BURST: '1' } });
    const params = { authorization: `Bearer ${KEYS.reader.key}` };
    const first = wsClient(limited.url, { connectionParams: params, lazy: false });
    await connected(first);
    await first.dispose();
    const second = wsClient(limited.url, { connectionParams: params, lazy: false, onNonLazyError: () => undefined });
    const event = await new Promise<{ code: number; reason: string }>((resolve) => {
      second.on('closed', (e) => resolve(e as { code: number; reason: string }));
    });
    expect(event.code).toBe(4429);
    expect(event.reason).toMatch(/retry in \d+s/);
    await second.dispose();
  });
});

describe('subscribe over the rate limit', () => {
  it('fails that operation with RATE_LIMITED, as HTTP answers 429, and the socket keeps serving', async ({ gatewayWith }) => {
    // connection_init spends one of the burst, each subscribe one more; another key's rate is its own.
    const limited = await gatewayWith({ listen: true, env: { ...KEYS_ENV, RATE_LIMIT_PER_SECOND: '0.001', RATE_LIMIT_BURST: '3' } });
    const client = wsClient(limited.url, { connectionParams: bearer(KEYS.reader), lazy: false });
    let closed = false;
    client.on('closed', () => (closed = true));
    try {
      await connected(client);
      for (let i = 0; i < 2; i++) {
        const read = subscribeWs(client, '{ __typename }');
        expect(await read.ended).toBe('complete');
      }
      const refused = subscribeWs(client, '{ __typename }');
      expect(await refused.ended).toBe('error');
      const [error] = refused.error as { message: string; extensions: Record<string, unknown> }[];
      expect(error!.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
      expect(error!.message).toContain(KEYS.reader.name);
      expect(closed).toBe(false);
      expect((await limited.gql('{ __typename }', undefined, bearer(KEYS.treasurer))).status).toBe(200);
    } finally {
      await client.dispose();
    }
  });
});

describe('what one caller can make a WebSocket endpoint hold', () => {
  const ACCOUNT = 'subscription { giftStatusChanged { gift { uuid } } }';
  const closeOf = (client: ReturnType<typeof wsClient>) =>
    new Promise<{ code: number; reason: string }>((resolve) =>
      client.on('closed', (e) => {
        const { code, reason } = e as { code: number; reason: string };
        resolve({ code, reason });
      }),
    );

  it('refuses an operation past WS_MAX_SUBSCRIPTIONS_PER_SOCKET with its own code, and the socket keeps serving', async ({ capped }) => {
    const client = wsClient(capped.url, { connectionParams: bearer(KEYS.reader), lazy: false });
    let closed = false;
    client.on('closed', () => (closed = true));
    try {
      const first = subscribeWs(client, ACCOUNT);
      const second = subscribeWs(client, ACCOUNT);
      await vi.waitFor(() => expect(capped.gateway.live.stats().subscribers).toBe(2));
      const third = subscribeWs(client, ACCOUNT);
      expect(await third.ended).toBe('error');
      const [error] = third.error as { message: string; extensions: Record<string, unknown> }[];
      expect(error!.extensions).toEqual({ code: 'SUBSCRIPTIONS_PER_SOCKET_EXCEEDED', limit: 2 });
      expect(error!.message).toMatch(/maximum of 2 .*WS_MAX_SUBSCRIPTIONS_PER_SOCKET/);
      expect(capped.gateway.live.stats().subscribers).toBe(2);

      second.close();
      await vi.waitFor(() => expect(capped.gateway.live.stats().subscribers).toBe(1));
      const replacement = subscribeWs(client, ACCOUNT);
      await vi.waitFor(() => expect(capped.gateway.live.stats().subscribers).toBe(2));
      expect(closed).toBe(false);
      first.close();
      replacement.close();
    } finally {
      await client.dispose();
    }
  });

  it('closes a connection past WS_MAX_CONNECTIONS_PER_KEY with 4430, counting each key apart', async ({ capped }) => {
    const open = [
      wsClient(capped.url, { connectionParams: bearer(KEYS.reader), lazy: false }),
      wsClient(capped.url, { connectionParams: bearer(KEYS.reader), lazy: false }),
    ];
    await Promise.all(open.map(connected));
    const third = wsClient(capped.url, { connectionParams: bearer(KEYS.reader), lazy: false, onNonLazyError: () => undefined });
    expect(await closeOf(third)).toEqual({ code: 4430, reason: 'Too many connections: at most 2 per API key (WS_MAX_CONNECTIONS_PER_KEY)' });
    await third.dispose();

    const otherKey = wsClient(capped.url, { connectionParams: bearer(KEYS.writer), lazy: false });
    await connected(otherKey);
    // A closed connection gives its place back.
    await open[0]!.dispose();
    const again = wsClient(capped.url, { connectionParams: bearer(KEYS.reader), lazy: false });
    await connected(again);
    await Promise.all([open[1]!.dispose(), otherKey.dispose(), again.dispose()]);
  });

  it('closes a reader that lets output pile up past WS_MAX_BUFFERED_BYTES with 4413, instead of buffering it', async ({ capped }) => {
    const socket = new WebSocket(`${capped.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const acked = new Promise<void>((resolve) => socket.once('message', () => resolve()));
    // A key of its own: the connection cap of the test before does not concern it.
    socket.send(JSON.stringify({ type: 'connection_init', payload: bearer(KEYS.treasurer) }));
    await acked;
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    // The client stops reading and keeps asking: every ping is answered by a pong as large. Far more than the
    // kernel's socket buffers hold, so what is left waits in the gateway.
    const tcp = (socket as unknown as { _socket: import('node:net').Socket })._socket;
    tcp.pause();
    const ping = JSON.stringify({ type: 'ping', payload: { pad: 'p'.repeat(10_000) } });
    for (let i = 0; i < 3_000; i++) socket.send(ping);
    await new Promise<void>((resolve) => socket.send(ping, () => resolve()));
    tcp.resume();
    expect(await closed).toEqual({ code: 4413, reason: 'Slow reader: over 65536 bytes of output waiting (WS_MAX_BUFFERED_BYTES)' });
    // The gateway serves on.
    const client = wsClient(capped.url, { connectionParams: bearer(KEYS.treasurer), lazy: false });
    await connected(client);
    await client.dispose();
  });
});

describe('a connection that leaves while its key is being checked', () => {
  let server: Server;
  let url: string;
  let endpoint: WebSocketEndpoint;
  let letIn: () => void = () => undefined;
  let admitting: () => void = () => undefined;

  beforeAll(async () => {
    const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { ok: Boolean }', resolvers: { Query: { ok: () => true } } }) });
    server = createServer(yoga);
    const open = createRateLimit(createRateLimiter({ perSecond: 1000, burst: 1000 }));
    // The first admission's rate check waits until the test lets it in: long enough for its client to be gone.
    let first = true;
    const rateLimit = {
      async spend(caller: Caller) {
        if (first) {
          first = false;
          admitting();
          await new Promise<void>((resolve) => (letIn = resolve));
        }
        return open.spend(caller);
      },
    };
    endpoint = attachWebSocket(
      server,
      yoga,
      { identify: () => DEVELOPMENT_CALLER, rateLimit, paramsHooks: [], upgradeAllowed: () => true },
      { maxPayloadBytes: 100_000, maxOperationsPerSocket: 10, maxConnectionsPerKey: 1, maxBufferedBytes: 1_000_000 },
      { error: () => undefined, debug: () => undefined },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await endpoint.close(1_000);
    await new Promise((resolve) => server.close(resolve));
  });

  it('holds no place of its key (WS_MAX_CONNECTIONS_PER_KEY)', async () => {
    const admission = new Promise<void>((resolve) => (admitting = resolve));
    const leaving = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => leaving.once('open', resolve));
    leaving.send(JSON.stringify({ type: 'connection_init' }));
    await admission;
    const gone = new Promise((resolve) => leaving.once('close', resolve));
    leaving.terminate();
    await gone;
    // The gateway's side of it has closed too before the key check ends.
    await vi.waitFor(async () => expect(await new Promise((resolve) => server.getConnections((_e, n) => resolve(n)))).toBe(0));
    letIn();
    // The cap is one connection: the next client gets it.
    const next = wsClient(url, { lazy: false });
    await connected(next);
    await next.dispose();
  });
});
