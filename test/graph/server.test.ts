import { describe, expect } from 'vitest';
import { eventually, within } from '../support/cluster.js';
import { testWith } from '../support/test.js';

// Lifetime: the file. The file's gateway listening: /health is answered outside yoga.
const it = testWith({ env: { READY_CACHE_MS: '0' } }).extend('url', { scope: 'file' }, ({ gateway }) => gateway.listen());

describe('server endpoints', () => {
  it('/health answers without touching the upstream', async ({ gateway, url }) => {
    await gateway.upstreamDelta();
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  // An upstream outage is every replica's at once: were it a reason to refuse, the Service would lose every
  // replica together and callers would get the ingress's connection errors instead of stale reads and typed
  // UpstreamUnavailable answers. /ready refuses only while this replica cannot serve (draining).
  it('/ready stays 200 through an upstream outage, reporting the upstream down and the circuit open; 503 only once draining', async ({
    gatewayWith,
  }) => {
    const t = await gatewayWith({
      listen: true,
      env: { READY_CACHE_MS: '0', UPSTREAM_BREAKER_FAILURES: '2', UPSTREAM_BREAKER_HALF_OPEN_MS: '60000', UPSTREAM_RETRY_ATTEMPTS: '1' },
    });
    const ready = async () => {
      const res = await fetch(`${t.url}/ready`);
      return { status: res.status, body: (await res.json()) as any };
    };
    await eventually(async () => (await ready()).body.upstream?.state === 'up', 25, { ms: 5_000, what: '/ready reporting the upstream up' });
    await t.sandbox.control.fault({ status: 503, rate: 1 });
    // Operations fail until the circuit opens.
    await eventually(async () => (await t.gql('{ funds { balances { currency } } }')).body.errors?.[0]?.extensions?.code === 'UPSTREAM_UNAVAILABLE');
    const seen = await eventually(async () => {
      const answer = await ready();
      expect(answer.status).toBe(200);
      return answer.body.upstream.state === 'down' && answer.body.circuit === 'open' && answer.body;
    });
    expect(seen).toMatchObject({
      status: 'ready',
      upstream: { state: 'down', reason: expect.any(String), checkedAt: expect.any(String) },
      circuit: 'open',
    });
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^reward_gateway_upstream_reachable 0$/m);
    expect(metrics).toMatch(/^reward_gateway_upstream_circuit_state\{state="open"\} 1$/m);
    t.gateway.drain();
    const draining = await ready();
    expect(draining.status).toBe(503);
    expect(draining.body).toEqual({ status: 'draining' });
  });

  it('/ready never waits for the upstream, and probes and scrapes cost at most one ping per READY_CACHE_MS', async ({ gatewayWith }) => {
    const t = await gatewayWith({ listen: true, env: { READY_CACHE_MS: '60000', UPSTREAM_TIMEOUT_MS: '20000' } });
    // A hung upstream: a probe waiting on it would miss the probe's timeout and take the replica out.
    await t.sandbox.control.fault({ route: 'GET /ping', latency_ms: 10_000, rate: 1 });
    await t.upstreamDelta();
    await within(
      5_000,
      '20 probes answered while the ping hangs',
      (async () => {
        for (let i = 0; i < 20; i++) {
          expect((await fetch(`${t.url}/ready`)).status).toBe(200);
          // A scrape reports the last ping and starts none.
          expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
        }
      })(),
    );
    await t.sandbox.control.clearFaults();
    expect((await t.upstreamDelta())['GET /ping'] ?? 0).toBeLessThanOrEqual(1);
  });

  it('serves GraphiQL with its assets inlined (works offline)', async ({ url }) => {
    const res = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('reward-gateway');
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:\/\/unpkg/);
  });
});
