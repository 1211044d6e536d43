import { describe, expect } from 'vitest';
import { PollWatch, subscribeSse, subscribeWs, wsClient } from '../support/live.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// Subscriptions pass the same door and scope rules as queries, on both transports.

// The file's gateway's polls, watched from the first test that asks.
const it = testWith({ env: { ...KEYS_ENV, POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' } }).extend(
  'watch',
  { scope: 'file' },
  async ({ gateway }) => {
    const watch = new PollWatch();
    gateway.gateway.live.listen(watch);
    return watch;
  },
);

const FUNDS = 'subscription { fundsChanged { funds { balances { currency } } } }';

function closeCode(client: ReturnType<typeof wsClient>): Promise<number> {
  return new Promise((resolve) => {
    client.on('closed', (event) => resolve((event as { code: number }).code));
  });
}

describe('WebSocket', () => {
  it('refuses a connection without a valid key (4403) before any poller starts', async ({ gateway }) => {
    const url = await gateway.listen();
    for (const connectionParams of [{}, { authorization: 'Bearer not-a-configured-key-000000000' }]) {
      // onNonLazyError: the refusal is what this test expects; graphql-ws would print it to stderr.
      const client = wsClient(url, { connectionParams, lazy: false, onNonLazyError: () => undefined });
      const code = closeCode(client);
      const stream = subscribeWs(client, FUNDS);
      expect(await code).toBe(4403);
      expect(await stream.ended).toBe('error');
      await client.dispose();
    }
    expect(gateway.gateway.live.stats().pollers).toBe(0);
  });

  it("answers FORBIDDEN for a subscription outside the key's scopes, and serves the ones inside", async ({ gateway, watch }) => {
    const url = await gateway.listen();
    const client = wsClient(url, { connectionParams: bearer(KEYS.reader) });
    const forbidden = subscribeWs(client, FUNDS);
    await forbidden.ended;
    expect(JSON.stringify([forbidden.received, forbidden.error])).toContain('FORBIDDEN');
    expect(gateway.gateway.live.stats().pollers).toBe(0);

    const treasurer = wsClient(url, { connectionParams: bearer(KEYS.fundsReader) });
    const allowed = subscribeWs(treasurer, 'subscription { fundsChanged(currency: "USD") { funds { balances { currency } } } }');
    // The first poll is the baseline: change the balance only after it.
    await watch.until(() => watch.completed('funds') >= 1);
    await gateway.sandbox.control.topUp('USD', 50_000);
    const event = await allowed.next();
    expect(event.data.fundsChanged.funds.balances.map((b: { currency: string }) => b.currency)).toContain('USD');
    allowed.close();
    await Promise.all([client.dispose(), treasurer.dispose()]);
  });
});

describe('SSE', () => {
  it('needs a key like any HTTP request', async ({ gateway }) => {
    const refused = subscribeSse(await gateway.listen(), FUNDS);
    expect(await refused.ended).toBe('dropped');
    expect(String(refused.error)).toMatch(/401/);
  });
});

describe('WebSocket hygiene', () => {
  async function openWith(url: string, headers: Record<string, string>): Promise<number | 'open'> {
    const { WebSocket } = await import('ws');
    return new Promise((resolve) => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers });
      socket.on('open', () => {
        socket.close();
        resolve('open');
      });
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('error', () => undefined);
    });
  }

  it('refuses a browser page from another origin (cross-site WebSocket hijacking) and accepts its own origin', async ({ gateway }) => {
    const url = await gateway.listen();
    expect(await openWith(url, { origin: 'https://evil.example.net' })).toBe(401);
    expect(await openWith(url, { origin: url })).toBe('open');
    expect(await openWith(url, {})).toBe('open');
  });
});
