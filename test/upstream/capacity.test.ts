import { afterAll, beforeAll, describe, expect } from 'vitest';
import { UpstreamError } from '../../src/upstream/errors.js';
import { createEmailOrder } from '../support/fixtures.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { it, test } from '../support/test.js';
import { captureClient } from './helpers.js';

// At the default capacity settings, with a healthy upstream, the gateway refuses only what the upstream
// cannot take in time: dashboards reading many orders at once are answered in full, however many upstream
// calls they queue, while a backlog the upstream could never serve within the queue timeout is still refused
// at once rather than after waiting for it.

const NESTED = `query Nested($refs: [ID!]!) {
  campaigns(refs: $refs) {
    uuid status
    gifts(first: 20) { edges { node { uuid status deliveryStatus priceInCents recipientEmail brand { name } } } }
  }
}`;

const codes = (body: { errors?: { extensions?: { code?: string } }[] }) => (body.errors ?? []).map((e) => e.extensions?.code);

describe('default capacity with a healthy upstream', () => {
  let gw: TestGateway;
  let refs: string[] = [];
  beforeAll(async () => {
    // A healthy upstream answering in 200 ms: every read's calls are still waiting when the last read
    // arrives, as they are under load in production. The production timeouts (the suites' defaults are
    // shorter), so a call may wait UPSTREAM_QUEUE_TIMEOUT_MS for a slot.
    gw = await startTestGateway({ sandbox: { latencyMs: 200 }, env: { UPSTREAM_TIMEOUT_MS: '10000', UPSTREAM_RETRY_BUDGET_MS: '15000' } });
    refs = (await Promise.all(Array.from({ length: 50 }, () => createEmailOrder(gw.sandbox, { recipients: 5 })))).map((o) => o.uuid);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  async function read(orders: string[]) {
    const res = await gw.gql(NESTED, { refs: orders });
    return { status: res.status, codes: codes(res.body), orders: (res.body.data?.campaigns ?? []) as { gifts: { edges: unknown[] } }[] };
  }

  it('answers ten 50-order dashboards at once in full', { timeout: 60_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => read(refs)));
    for (const answer of answers) {
      expect(answer.codes).toEqual([]);
      expect(answer.orders).toHaveLength(50);
      expect(answer.orders.every((o) => o.gifts.edges.length === 5)).toBe(true);
    }
  });

  it('answers 50 concurrent 10-order reads in full', { timeout: 60_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => read(refs.slice(i % 40, (i % 40) + 10))));
    for (const answer of answers) {
      expect(answer.codes).toEqual([]);
      expect(answer.orders).toHaveLength(10);
    }
  });
});

describe('a backlog the upstream cannot serve within the queue timeout', () => {
  // The file's sandbox; only this describe uses it.
  test.beforeAll(async ({ sandbox }) => {
    // Far slower than the 300 ms a call may wait for a slot below.
    await sandbox.control.fault({ route: 'GET /campaign/:id', latency_ms: 3_000, rate: 1 });
  });

  it('is refused at once once the lane is seen to be that slow, instead of after the queue timeout', { timeout: 20_000 }, async ({ sandbox }) => {
    const { client } = captureClient({
      baseUrl: sandbox.sandbox.baseUrl,
      token: sandbox.sandbox.token,
      maxInFlight: 2,
      laneShare: 1,
      queueTimeoutMs: 300,
    });
    const lookup = async (ref: string) => {
      const started = performance.now();
      const error = await client.getCampaign(ref).then(
        () => null,
        (err: unknown) => err,
      );
      return { ms: performance.now() - started, error };
    };
    try {
      // Nothing is known of the upstream yet: two calls go out, the others wait and time out.
      const first = Array.from({ length: 10 }, (_, i) => lookup(`first-${i}`));
      const timedOut = await Promise.all(first.slice(2));
      expect(timedOut.every((r) => r.error instanceof UpstreamError && r.error.kind === 'overloaded')).toBe(true);
      // Those timeouts showed that no slot frees within 300 ms: the next wave is refused without waiting.
      const second = await Promise.all(Array.from({ length: 100 }, (_, i) => lookup(`second-${i}`)));
      expect(second.every((r) => r.error instanceof UpstreamError && r.error.kind === 'overloaded')).toBe(true);
      const atOnce = second.filter((r) => r.ms < 150);
      expect(atOnce.length).toBeGreaterThanOrEqual(95);
      expect((atOnce[0]!.error as Error).message).toMatch(/its queue would take about \d+ ms to reach it, longer than the 300 ms it may wait/);
    } finally {
      await client.close();
    }
  });
});
