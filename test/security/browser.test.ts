import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// Browser protections: CSRF (a page on another site cannot make a browser run an operation with a "simple"
// request) and a CORS allow-list.

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: { CORS_ORIGINS: 'https://tools.example.com' } });
});
afterAll(async () => {
  await gw?.close();
});

describe('CSRF prevention', () => {
  it('refuses simple cross-site requests (GET without the header, form posts) without calling upstream', async () => {
    await gw.upstreamDelta();
    const get = await fetch(`${gw.url}/graphql?query=${encodeURIComponent('{ regions { id } }')}`, { headers: { accept: 'application/json' } });
    expect(get.status).toBe(403);
    const form = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ regions { id } }' }),
    });
    expect(form.status).toBe(403);
    expect(await gw.upstreamDelta()).toEqual({});
  });

  it('serves GET with the CSRF header, and JSON posts', async () => {
    const get = await fetch(`${gw.url}/graphql?query=${encodeURIComponent('{ regions { id } }')}`, {
      headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
    });
    expect(get.status).toBe(200);
    expect((await gw.gql('{ regions { id } }')).status).toBe(200);
  });
});

describe('CORS', () => {
  async function preflight(origin: string) {
    return fetch(`${gw.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    });
  }

  it('allows listed origins and no others', async () => {
    const allowed = await preflight('https://tools.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://tools.example.com');
    const other = await preflight('https://evil.example.net');
    expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example.net');
    expect(other.headers.get('access-control-allow-origin')).not.toBe('*');
  });
});
