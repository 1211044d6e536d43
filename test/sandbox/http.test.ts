// Transport-level behaviour: auth on every route, routing misses, the rate-limit header, malformed bodies,
// and that the process survives whatever a client sends.
import net from 'node:net';
import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';
import { type TestSandbox } from '../support/sandbox.js';
import { expectError } from './helpers.js';

const it = testWith({ sandboxOptions: { token: 'secret-token-1' } });
it.beforeEach(({ sandbox }) => sandbox.control.reset());

const raw = (sandbox: TestSandbox, path: string, init: RequestInit = {}) =>
  fetch(sandbox.sandbox.baseUrl + path, init).then(async (res) => ({ status: res.status, body: (await res.json()) as any, headers: res.headers }));

describe('request ids', () => {
  it('echoes x-request-id on API answers, errors included, and counts the calls per id in stats', async ({ sandbox }) => {
    const ok = await raw(sandbox, '/ping', { headers: { authorization: 'Bearer secret-token-1', 'x-request-id': 'req-1' } });
    const refused = await raw(sandbox, '/ping', { headers: { 'x-request-id': 'req-1' } });
    const other = await raw(sandbox, '/funds', { headers: { authorization: 'Bearer secret-token-1', 'x-request-id': 'req-2' } });
    const none = await raw(sandbox, '/ping', { headers: { authorization: 'Bearer secret-token-1' } });
    expect([ok.status, refused.status, other.status, none.status]).toEqual([200, 401, 200, 200]);
    expect([ok, refused, other, none].map((r) => r.headers.get('x-request-id'))).toEqual(['req-1', 'req-1', 'req-2', null]);
    expect((await sandbox.control.stats()).requestIds).toEqual({ 'req-1': 2, 'req-2': 1 });
  });
});

describe('auth', () => {
  it('answers ping with the account and INFO_CREDENTIALS', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/ping');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: 'owner@sandbox.invalid', displayname: 'Sandbox Owner', status: 200 });
    expect(res.body.info.code).toBe('INFO_CREDENTIALS');
    expect(sandbox.sandbox.token).toBe('secret-token-1');
    expect(sandbox.sandbox.baseUrl).toBe(`${sandbox.sandbox.origin}/papi/v1`);
  });

  it.for<[string, Record<string, string>]>([
    ['missing', {}],
    ['without the Bearer prefix', { authorization: 'secret-token-1' }],
    ['with a lowercase scheme', { authorization: 'bearer secret-token-1' }],
    ['with two spaces', { authorization: 'Bearer  secret-token-1' }],
    ['wrong', { authorization: 'Bearer secret-token-2' }],
    ['a prefix of the token', { authorization: 'Bearer secret' }],
  ])('refuses a %s token with 401 and the envelope', async ([, headers], { sandbox }) => {
    const res = await raw(sandbox, '/ping', { headers });
    expectError(res, 401, 'ERROR_UNAUTHORIZED');
  });

  it('protects every route, including creating ones, and creates nothing without auth', async ({ sandbox }) => {
    for (const [method, path] of [
      ['GET', '/funds'],
      ['GET', '/gifts'],
      ['GET', '/brands'],
      ['GET', '/regions'],
      ['GET', '/campaign/x'],
      ['POST', '/campaign'],
      ['POST', '/funds'],
      ['DELETE', '/gifts/x'],
    ] as const) {
      const res = await raw(sandbox, path, { method, headers: { authorization: 'Bearer nope' }, ...(method === 'POST' ? { body: '{}' } : {}) });
      expectError(res, 401, 'ERROR_UNAUTHORIZED');
    }
    expect((await sandbox.control.stats()).creates).toEqual({});
  });

  it('refuses an unknown route with 401 before 404 when the token is wrong', async ({ sandbox }) => {
    expectError(await raw(sandbox, '/nothing-here'), 401, 'ERROR_UNAUTHORIZED');
  });
});

describe('routing', () => {
  it('answers unknown routes with 404 ERROR_NOT_FOUND', async ({ sandbox }) => {
    expectError(await sandbox.api('GET', '/nothing-here'), 404, 'ERROR_NOT_FOUND');
    expectError(await sandbox.api('GET', '/campaigns'), 404, 'ERROR_NOT_FOUND');
    const outside = await fetch(`${sandbox.sandbox.origin}/v2/ping`);
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as any).error.code).toBe('ERROR_NOT_FOUND');
  });

  it('answers a known path with the wrong method with 405 and Allow', async ({ sandbox }) => {
    const res = await sandbox.api('DELETE', '/ping');
    expectError(res, 405, 'ERROR_METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET');
    const campaign = await sandbox.api('PUT', '/campaign/abc', { resend: true });
    expectError(campaign, 405, 'ERROR_METHOD_NOT_ALLOWED');
    expect(campaign.headers.get('allow')).toBe('GET');
    expect((await sandbox.api('PATCH', '/gifts/abc')).headers.get('allow')).toBe('GET, PUT, DELETE');
    expect((await sandbox.api('GET', '/campaign')).headers.get('allow')).toBe('POST');
  });

  it('ignores a trailing slash', async ({ sandbox }) => {
    expect((await sandbox.api('GET', '/ping/')).status).toBe(200);
  });

  it('answers unknown control routes with 404', async ({ sandbox }) => {
    const res = await fetch(`${sandbox.sandbox.origin}/__sandbox/unknown`, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});

describe('rate limit simulation', () => {
  it('answers 429 ERROR_TOO_MANY_REQUESTS to SIMULATE-RATELIMIT: true, on any route, creating nothing', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/ping', undefined, { 'SIMULATE-RATELIMIT': 'true' });
    expectError(res, 429, 'ERROR_TOO_MANY_REQUESTS');
    const post = await sandbox.api(
      'POST',
      '/funds',
      { id: 'f', currencyisocode: 'USD', fund_amount_in_cents: 30000 },
      { 'simulate-ratelimit': 'TRUE' },
    );
    expectError(post, 429, 'ERROR_TOO_MANY_REQUESTS');
    expect((await sandbox.control.stats()).creates).toEqual({});
    expect((await sandbox.api('GET', '/ping', undefined, { 'SIMULATE-RATELIMIT': 'false' })).status).toBe(200);
  });
});

describe('bad input', () => {
  it('answers broken JSON with 400 ERROR_MALFORMED_REQUEST', async ({ sandbox }) => {
    expectError(await sandbox.api('POST', '/campaign', '{"id": "x",'), 400, 'ERROR_MALFORMED_REQUEST');
  });

  it('answers a body that is not an object, or none, with 400', async ({ sandbox }) => {
    for (const body of ['[1,2]', '"text"', 'null', '42']) {
      expectError(await sandbox.api('POST', '/campaign', body), 400, 'ERROR_MALFORMED_REQUEST');
    }
    expectError(await sandbox.api('POST', '/direct_links'), 400, 'ERROR_MALFORMED_REQUEST');
  });

  it('answers a body over 1 MiB with 413', async ({ sandbox }) => {
    const big = JSON.stringify({ id: 'big', pad: 'x'.repeat(1024 * 1024) });
    expectError(await sandbox.api('POST', '/campaign', big), 413, 'ERROR_PAYLOAD_TOO_LARGE');
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
  });

  it('answers a repeated query parameter with 422', async ({ sandbox }) => {
    expectError(await sandbox.api('GET', '/gifts?limit=1&limit=2'), 422, 'ERROR_INVALID_PARAMETERS');
  });

  it('survives garbage on the socket and keeps serving', async ({ sandbox }) => {
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(new URL(sandbox.sandbox.origin).port), '127.0.0.1', () => {
        socket.write('THIS IS NOT HTTP\r\n\r\n');
      });
      socket.on('data', (d) => expect(d.toString()).toContain('400'));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    // And a client that vanishes mid-body.
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(new URL(sandbox.sandbox.origin).port), '127.0.0.1', () => {
        socket.write(`POST /papi/v1/campaign HTTP/1.1\r\nhost: x\r\nauthorization: Bearer secret-token-1\r\ncontent-length: 100\r\n\r\n{"id":`);
        socket.destroy();
        resolve();
      });
    });
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
  });
});
