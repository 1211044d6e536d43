import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { PollWatch, subscribeSse, subscribeWs, wsClient } from '../support/live.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// Subscriptions pass the same door and scope rules as queries, on both transports.

let gw: TestGateway;
const watch = new PollWatch();

beforeAll(async () => {
  gw = await startTestGateway({ env: { ...KEYS_ENV, POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' } });
  gw.gateway.live.listen(watch);
});
afterAll(async () => {
  await gw?.close();
});

const FUNDS = 'subscription { fundsChanged { funds { balances { currency } } } }';

function closeCode(client: ReturnType<typeof wsClient>): Promise<number> {
  return new Promise((resolve) => {
    client.on('closed', (event) => resolve((event as { code: number }).code));
  });
}

describe('WebSocket', () => {
  it('refuses a connection without a valid key (4403) before any poller starts', async () => {
    for (const connectionParams of [{}, { authorization: 'Bearer not-a-configured-key-000000000' }]) {
      // onNonLazyError: the refusal is what this test expects; graphql-ws would print it to stderr.
      const client = wsClient(gw.url, { connectionParams, lazy: false, onNonLazyError: () => undefined });
      const code = closeCode(client);
      const stream = subscribeWs(client, FUNDS);
      expect(await code).toBe(4403);
      expect(await stream.ended).toBe('error');
      await client.dispose();
    }
    expect(gw.gateway.live.stats().pollers).toBe(0);
  });

  it("answers FORBIDDEN for a subscription outside the key's scopes, and serves the ones inside", async () => {
    const client = wsClient(gw.url, { connectionParams: bearer(KEYS.reader) });
    const forbidden = subscribeWs(client, FUNDS);
    await forbidden.ended;
    expect(JSON.stringify([forbidden.received, forbidden.error])).toContain('FORBIDDEN');
    expect(gw.gateway.live.stats().pollers).toBe(0);

    const treasurer = wsClient(gw.url, { connectionParams: bearer(KEYS.fundsReader) });
    const allowed = subscribeWs(treasurer, 'subscription { fundsChanged(currency: "USD") { funds { balances { currency } } } }');
    // The first poll is the baseline: change the balance only after it.
    await watch.until(() => watch.completed('funds') >= 1);
    await gw.sandbox.control.topUp('USD', 50_000);
    const event = await allowed.next();
    expect(event.data.fundsChanged.funds.balances.map((b: { currency: string }) => b.currency)).toContain('USD');
    allowed.close();
    await Promise.all([client.dispose(), treasurer.dispose()]);
  });
});

describe('SSE', () => {
  it('needs a key like any HTTP request', async () => {
    const refused = subscribeSse(gw.url, FUNDS);
    expect(await refused.ended).toBe('dropped');
    expect(String(refused.error)).toMatch(/401/);
  });
});

describe('WebSocket hygiene', () => {
  async function openWith(headers: Record<string, string>): Promise<number | 'open'> {
    const { WebSocket } = await import('ws');
    return new Promise((resolve) => {
      const socket = new WebSocket(`${gw.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers });
      socket.on('open', () => {
        socket.close();
        resolve('open');
      });
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('error', () => undefined);
    });
  }

  it('refuses a browser page from another origin (cross-site WebSocket hijacking) and accepts its own origin', async () => {
    expect(await openWith({ origin: 'https://evil.example.net' })).toBe(401);
    expect(await openWith({ origin: gw.url })).toBe('open');
    expect(await openWith({})).toBe('open');
  });
});
