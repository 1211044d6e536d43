import { describe, expect } from 'vitest';
import { createRateLimiter } from '../../src/security/rate-limit.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// The gateway of the HTTP and WebSocket tests: a refill so slow that the bucket does not refill during the test.
const it = testWith({ env: { ...KEYS_ENV, RATE_LIMIT_BURST: '3', RATE_LIMIT_PER_SECOND: '0.01' } });

describe('token bucket', () => {
  it('allows a burst, then refills at the rate, with a retry hint in between', () => {
    let now = 0;
    const limiter = createRateLimiter({ perSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('k').allowed)).toEqual([true, true, true]);
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 500; // one token back at 2/s
    expect(limiter.take('k').allowed).toBe(true);
    expect(limiter.take('k').allowed).toBe(false);
    expect(limiter.take('other').allowed).toBe(true); // buckets are per key
  });
});

describe('per-key rate limit over HTTP', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a key spends its burst; other keys are unaffected', async ({ gateway }) => {
    for (let i = 0; i < 3; i++) expect((await gateway.gql('{ regions { id } }', {}, bearer(KEYS.reader))).status).toBe(200);
    await gateway.upstreamDelta();
    const res = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(KEYS.reader) },
      body: JSON.stringify({ query: '{ regions { id } }' }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await res.json();
    expect(body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    expect(await gateway.upstreamDelta()).toEqual({});
    expect((await gateway.gql('{ regions { id } }', {}, bearer(KEYS.writer))).status).toBe(200);
  });

  it('refuses a WebSocket subscribe past the rate with the error an HTTP request gets', async ({ gateway }) => {
    // connection_init spends one operation of the burst (3), each subscribe one more.
    const client = wsClient(await gateway.listen(), { connectionParams: bearer(KEYS.treasurer) });
    try {
      for (let i = 0; i < 2; i++) expect((await subscribeWs(client, '{ __typename }').next()).data).toEqual({ __typename: 'Query' });
      const refused = subscribeWs(client, '{ __typename }');
      await refused.ended;
      const http = await gateway.gql('{ __typename }', {}, bearer(KEYS.treasurer));
      expect(http.status).toBe(429);
      expect(refused.error).toEqual(http.body.errors);
    } finally {
      await client.dispose();
    }
  });
});
