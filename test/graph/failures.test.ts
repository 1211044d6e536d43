import { describe, expect } from 'vitest';
import type { TestSandbox } from '../support/sandbox.js';
import { testWith } from '../support/test.js';

// Upstream failures become stable error codes on the failing field only; nothing internal leaks.

const it = testWith({ env: { UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_RETRY_ATTEMPTS: '2' } });
it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

function assertNoLeak(sandbox: TestSandbox, text: string) {
  expect(text).not.toContain(sandbox.sandbox.token);
  expect(text).not.toContain(sandbox.sandbox.origin);
  expect(text).not.toMatch(/at .+\.(ts|js):\d+/); // no stack frames
}

describe('failure mapping', () => {
  it('a 503 on one field is UPSTREAM_UNAVAILABLE there while siblings keep their data', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1 });
    const res = await gateway.gql('{ viewer { username } funds { balances { currency } } }');
    expect(res.status).toBe(200);
    expect(res.body.data?.viewer.username).toEqual(expect.any(String));
    expect(res.body.data?.funds).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['funds'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    assertNoLeak(sandbox, res.text);
  });

  it('a connection reset is UPSTREAM_UNAVAILABLE', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /regions', reset: true, rate: 1 });
    const res = await gateway.gql('{ regions { id } }');
    expect(res.body.errors![0]!.extensions!.code).toBe('UPSTREAM_UNAVAILABLE');
    assertNoLeak(sandbox, res.text);
  });

  it('a 429 storm is RATE_LIMITED with a retry hint', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /ping', status: 429, rate: 1 });
    const res = await gateway.gql('{ viewer { username } }');
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    assertNoLeak(sandbox, res.text);
  });

  it('a slow upstream is UPSTREAM_TIMEOUT', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /funds', latency_ms: 2_000, rate: 1 });
    const res = await gateway.gql('{ funds { balances { currency } } }');
    expect(res.body.errors![0]!.extensions!.code).toBe('UPSTREAM_TIMEOUT');
    assertNoLeak(sandbox, res.text);
  });

  it('a wrong upstream token is UPSTREAM_UNAUTHORIZED and the token never shows', async ({ gatewayWith }) => {
    const wrong = await gatewayWith({ token: 'definitely-wrong-token-123' });
    const res = await wrong.gql('{ viewer { username } }');
    expect(res.body.errors![0]!.extensions!.code).toBe('UPSTREAM_UNAUTHORIZED');
    expect(res.text).not.toContain('definitely-wrong-token-123');
    expect(res.text).not.toContain(wrong.sandbox.sandbox.token);
  });
});
