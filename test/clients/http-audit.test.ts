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

  it('honours an explicit RATE_LIMIT_BURST in keyless development, per client address', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true, env: { ...DEFAULTS, RATE_LIMIT_BURST: '40' } });
    // Another local tool sends 100 requests at once: refused past its burst, in its bucket, not everyone's.
    const flood = fetchFrom('127.0.0.3');
    const query = `${gw.url}/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const answers = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const res = await flood(query);
        return { status: res.status, body: await res.text() };
      }),
    );
    await flood.close();
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(JSON.parse(refused[0]!.body).errors[0].message).toMatch(/127\.0\.0\.3.*RATE_LIMIT_PER_SECOND/);
    const other = fetchFrom('127.0.0.2');
    expect((await other(query)).status).toBe(200);
    await other.close();
  }, 30_000);

  it("keeps a key's default burst of 40 when API keys are configured", async ({ gatewayWith }) => {
    const gw = await gatewayWith({ env: { ...DEFAULTS, ...KEYS_ENV } });
    const statuses = await Promise.all(
      Array.from({ length: 80 }, async () => (await gw.fetch('/graphql?query=%7B__typename%7D', { headers: bearer(KEYS.reader) })).status),
    );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
  });
});
