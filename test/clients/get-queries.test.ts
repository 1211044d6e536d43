import { describe, expect } from 'vitest';
import { apiKeys, bearer, it } from '../support/test.js';

// Queries over GET, as urql sends them by default (preferGetMethod) and as a browser's EventSource opens an SSE
// subscription: with a key (Authorization is a header no cross-site page can send without a preflight), and in
// keyless development on loopback with no header at all, unless the browser says the request is cross-site.

const query = (q: string) => `/graphql?query=${encodeURIComponent(q)}`;
const keys = apiKeys({ reader: ['rewards:read'] });

describe('keyless development', () => {
  it('answers a GET query with no custom header', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true });
    const res = await fetch(`${gw.url}${query('{ regions { id } }')}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect((await res.json()).data.regions.length).toBeGreaterThan(0);
  });

  it('answers a page on localhost, refuses one from another site', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true });
    const from = (headers: Record<string, string>) =>
      fetch(`${gw.url}${query('{ regions { id } }')}`, { headers: { accept: 'application/json', ...headers } });
    expect((await from({ origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' })).status).toBe(200);
    expect((await from({ origin: 'https://evil.example.net' })).status).toBe(403);
    expect((await from({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('keeps mutations off GET (405)', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true });
    const res = await fetch(`${gw.url}${query('mutation { resendGift(uuid: "x") { __typename } }')}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(405);
  });

  it('streams an SSE subscription to an EventSource-style GET (no custom header)', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true });
    const controller = new AbortController();
    const res = await fetch(`${gw.url}${query('subscription { fundsChanged { cursor } }')}`, {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });
});

describe('with API keys', () => {
  it('answers a GET query carrying Authorization, and refuses one without (401)', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: { GATEWAY_API_KEYS: JSON.stringify(Object.values(keys)) } });
    const withKey = await fetch(`${gw.url}${query('{ regions { id } }')}`, { headers: { accept: 'application/json', ...bearer(keys.reader) } });
    expect(withKey.status).toBe(200);
    const without = await fetch(`${gw.url}${query('{ regions { id } }')}`, { headers: { accept: 'text/event-stream' } });
    expect(without.status).toBe(401);
  });
});
