import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { connected, PollWatch, subscribeWs, wsClient } from '../support/live.js';
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

let gw: TestGateway;
const watch = new PollWatch();

beforeAll(async () => {
  gw = await startTestGateway({
    env: { ...KEYS_ENV, MAX_DEPTH: '8', MAX_ALIASES: '5', MAX_TOKENS: '400', MAX_COST: '2000', POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' },
  });
  gw.gateway.live.listen(watch);
});
afterAll(async () => {
  await gw?.close();
});

describe('operation limits', () => {
  it.each(LIMITS)('over HTTP, %s carries a stable code', async (_name, query, variables, code) => {
    await gw.upstreamDelta();
    const res = await gw.gql(query, variables, bearer(KEYS.reader));
    expect(res.body.errors?.[0]?.extensions?.code, res.text).toBe(code);
    expect(await gw.upstreamDelta()).toEqual({});
  });

  it('over WebSocket, each fails its own operation and the socket keeps serving', async () => {
    const client = wsClient(gw.url, { connectionParams: { authorization: `Bearer ${KEYS.treasurer.key}` }, lazy: false });
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
      await gw.sandbox.control.topUp('USD', 50_000);
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
  let limited: TestGateway;
  beforeAll(async () => {
    limited = await startTestGateway({ env: { ...KEYS_ENV, RATE_LIMIT_PER_SECOND: '0.1', RATE_LIMIT_BURST: '1' } });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('closes with 4429 and says when to retry (not 4403 like an unknown key)', async () => {
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
