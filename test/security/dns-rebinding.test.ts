import { request } from 'node:http';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { it } from '../support/test.js';
import { KEYS, KEYS_ENV } from './keys.js';

// DNS rebinding: a page on a foreign origin whose name resolves to 127.0.0.1 reaches the gateway with its
// own name in Host. Without API keys (development) the gateway trusts every caller, so it serves loopback
// names only; with keys, the key is what counts.

/** A raw HTTP request with a chosen Host header (fetch does not let a caller set it). */
function post(url: string, host: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/graphql`, {
      method: 'POST',
      headers: { host, 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ADD_FUNDS = JSON.stringify({
  query: 'mutation { addFunds(input: { id: "rebind-1", currency: "USD", amountInCents: 50000 }) { __typename } }',
});

function wsOpens(url: string, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { host } });
    ws.on('open', () => {
      ws.close();
      resolve(true);
    });
    ws.on('error', () => resolve(false));
  });
}

describe('without API keys (the file gateway, listening)', () => {
  it.for(['evil.example', 'evil.example:4000', '127.0.0.1.nip.io', 'localhost.evil.example'])(
    'refuses Host %s before anything runs',
    async (host, { gateway }) => {
      const url = await gateway.listen();
      await gateway.upstreamDelta();
      const res = await post(url, host, ADD_FUNDS);
      expect(res.status).toBe(403);
      expect(JSON.parse(res.text).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED');
      expect(await gateway.upstreamDelta()).toEqual({});
      expect(await wsOpens(url, host)).toBe(false);
    },
  );

  it.for(['localhost', 'localhost:4000', '127.0.0.1:4000', '[::1]:4000', 'app.localhost'])('serves Host %s', async (host, { gateway }) => {
    const url = await gateway.listen();
    const res = await post(url, host, JSON.stringify({ query: '{ viewer { username } }' }));
    expect(res.status, res.text).toBe(200);
    expect(await wsOpens(url, host)).toBe(true);
  });
});

describe('with API keys', () => {
  it('serves any Host: the key decides', async ({ gatewayWith }) => {
    const url = await (await gatewayWith({ env: KEYS_ENV })).listen();
    const res = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ query: '{ viewer { username } }' });
      const req = request(`${url}/graphql`, {
        method: 'POST',
        headers: {
          host: 'gateway.example.com',
          authorization: `Bearer ${KEYS.reader.key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(res).toBe(200);
  });
});
