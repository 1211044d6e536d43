import { describe, expect } from 'vitest';
import type { InProcessGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';

// Browser protections: CSRF (a page on another site cannot make a browser run an operation with a "simple"
// request) and a CORS allow-list.

const it = testWith({ env: { CORS_ORIGINS: 'https://tools.example.com' } });

describe('CSRF prevention', () => {
  it('refuses simple cross-site requests (GET without the header, form posts) without calling upstream', async ({ gateway }) => {
    await gateway.upstreamDelta();
    // Without keys a GET is refused only when the browser says it comes from another site (local tools pass).
    const get = await gateway.fetch(`/graphql?query=${encodeURIComponent('{ regions { id } }')}`, {
      headers: { accept: 'application/json', 'sec-fetch-site': 'cross-site' },
    });
    expect(get.status).toBe(403);
    const form = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ regions { id } }' }),
    });
    expect(form.status).toBe(403);
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('serves GET with the CSRF header, and JSON posts', async ({ gateway }) => {
    const get = await gateway.fetch(`/graphql?query=${encodeURIComponent('{ regions { id } }')}`, {
      headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
    });
    expect(get.status).toBe(200);
    expect((await gateway.gql('{ regions { id } }')).status).toBe(200);
  });
});

describe('CORS', () => {
  async function preflight(gateway: InProcessGateway, origin: string) {
    return gateway.fetch('/graphql', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    });
  }

  it('allows listed origins and no others', async ({ gateway }) => {
    const allowed = await preflight(gateway, 'https://tools.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://tools.example.com');
    const other = await preflight(gateway, 'https://evil.example.net');
    expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example.net');
    expect(other.headers.get('access-control-allow-origin')).not.toBe('*');
  });
});
