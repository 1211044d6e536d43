import { auditServer, type AuditResult } from 'graphql-http';
import { describe, expect } from 'vitest';
import { TEST_ENV } from '../support/gateway.js';
import { it } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from '../security/keys.js';
import { fetchFrom } from './local-address.js';

// The official GraphQL-over-HTTP audit (graphql-http's auditServer) as a client developer runs it against
// `npm start`: keyless development, every setting at its default (none of the suites' TEST_ENV), the audit's 61
// requests sent at once as auditServer sends them, twice in a row. It must report nothing, not even a notice,
// both times. Keyless development's bucket is per client address with a larger default burst than a key's (a
// developer's tools are bursty; security/config.ts); its rate is production's, an explicit RATE_LIMIT_BURST is
// honoured, and a key's default burst is unchanged.

/** Every suite setting unset: the gateway as `npm start` runs it (an empty value means unset). */
const DEFAULTS = Object.fromEntries(Object.keys(TEST_ENV).map((name) => [name, '']));

const problemsOf = (results: AuditResult[]) => results.filter((r) => r.status !== 'ok').map((r) => `${r.status}: ${r.name}: ${r.reason}`);

describe('graphql-http audit in keyless development, at the default limits', () => {
  it('passes twice in a row with no error, warning or notice', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: DEFAULTS });
    const url = `${gw.url}/graphql`;
    const first = await auditServer({ url });
    expect(first.length).toBeGreaterThan(50);
    expect(problemsOf(first)).toEqual([]);
    expect(problemsOf(await auditServer({ url }))).toEqual([]);
  }, 60_000);

  // The bursts themselves, at a rate too slow to refill anything while the test runs: counted, not timed.
  const NO_REFILL = { RATE_LIMIT_PER_SECOND: '0.001' };

  /** Sends `n` operations one after another with `send` and returns how many were answered before the first 429. */
  async function admittedOf(send: (path: string) => Promise<Response>, n: number): Promise<number> {
    for (let i = 0; i < n; i++) {
      const res = await send(`/graphql?query=${encodeURIComponent('{ __typename }')}`);
      await res.arrayBuffer();
      if (res.status === 429) return i;
    }
    return n;
  }

  it('defaults to a burst of 400 in keyless development and 40 per key', async ({ gatewayWith }) => {
    const keyless = await gatewayWith({ env: { ...DEFAULTS, ...NO_REFILL } });
    expect(await admittedOf((path) => keyless.fetch(path), 500)).toBe(400);
    const keyed = await gatewayWith({ env: { ...DEFAULTS, ...NO_REFILL, ...KEYS_ENV } });
    expect(await admittedOf((path) => keyed.fetch(path, { headers: bearer(KEYS.reader) }), 100)).toBe(40);
  });

  it('honours an explicit RATE_LIMIT_BURST in keyless development, per client address', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: { ...DEFAULTS, ...NO_REFILL, RATE_LIMIT_BURST: '40' } });
    // Another local tool spends its burst: its bucket, not everyone's.
    const flood = fetchFrom('127.0.0.3');
    expect(await admittedOf((path) => flood(`${gw.url}${path}`), 100)).toBe(40);
    const refused = await flood(`${gw.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(refused.status).toBe(429);
    expect((await refused.json()).errors[0].message).toMatch(/127\.0\.0\.3.*RATE_LIMIT_PER_SECOND/);
    await flood.close();
    const other = fetchFrom('127.0.0.2');
    expect(await admittedOf((path) => other(`${gw.url}${path}`), 1)).toBe(1);
    await other.close();
  }, 30_000);
});
