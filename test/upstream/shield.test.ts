import { describe, expect } from 'vitest';
import { eventually } from '../support/cluster.js';
import { it } from '../support/test.js';

// The upstream budget and the circuit breaker through the whole gateway, against the sandbox: what reaches
// the reward API is counted in /__sandbox/stats, never timed.

const CREATE = `mutation Create($id: ID!) {
  createCampaign(input: { id: $id, priceInCents: 500, reward: { brand: "sbxcoffeeus" }, contacts: [{ email: "ada@example.com" }], subject: "Thanks", message: "For your help." }) {
    __typename
    ... on CreateCampaignPayload { orderId }
    ... on UpstreamUnavailable { message retryAfterSeconds }
    ... on Error { message }
    ... on ValidationError { issues { path message } }
  }
}`;
const FUNDS = '{ funds { balances { currency availableInCents } } }';
const WARM_CATALOG = '{ brands(first: 1) { totalCount } }';

const sent = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).flatMap(([route, n]) => (n - (before[route] ?? 0) > 0 ? [[route, n - (before[route] ?? 0)]] : [])));

describe('the circuit breaker', () => {
  it('opens after repeated failures: reads fail at once, a create is refused with nothing sent, probes are pings, and the same id is created once when the upstream is back', async ({
    gatewayWith,
  }) => {
    const logged: string[] = [];
    const gw = await gatewayWith({
      env: { UPSTREAM_BREAKER_FAILURES: '3', UPSTREAM_BREAKER_HALF_OPEN_MS: '300', UPSTREAM_RETRY_ATTEMPTS: '2', LOG_LEVEL: 'info' },
      logTo: { write: (line: string) => void logged.push(line) },
    });
    const { control } = gw.sandbox;
    expect((await gw.gql(WARM_CATALOG)).body.errors).toBeUndefined();
    await control.fault({ status: 503, rate: 1 });
    // Two reads of two failed attempts each: the third failure in a row opens the circuit.
    for (let i = 0; i < 2; i++) expect((await gw.gql(FUNDS)).body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');

    const before = (await control.stats()).requests;
    const read = await gw.gql(FUNDS);
    expect(read.body.errors?.[0]).toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(read.body.errors?.[0]?.message).toContain('nothing was sent');
    const created = await gw.gql(CREATE, { id: 'breaker-0001' });
    expect(created.body.data?.createCampaign).toMatchObject({ __typename: 'UpstreamUnavailable' });
    expect(created.body.data.createCampaign.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // While open, only probes reach the reward API, and they are pings: no read, no create.
    await eventually(async () => ((await control.stats()).requests['GET /ping'] ?? 0) > (before['GET /ping'] ?? 0));
    const whileOpen = sent(before, (await control.stats()).requests);
    expect(Object.keys(whileOpen)).toEqual(['GET /ping']);
    expect((await control.stats()).creates['breaker-0001']).toBeUndefined();

    // The upstream comes back: the next probe closes the circuit, and the very same create goes through once.
    await control.clearFaults();
    const answer = await eventually(async () => {
      const res = await gw.gql(CREATE, { id: 'breaker-0001' });
      return res.body.data?.createCampaign?.__typename === 'CreateCampaignPayload' && res;
    }, 50);
    expect(answer.body.data.createCampaign.orderId).toBe('breaker-0001');
    expect((await control.stats()).creates['breaker-0001']).toBe(1);
    expect((await gw.gql(CREATE, { id: 'breaker-0001' })).body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
    // A repeat is answered from the first: still the one order.
    expect((await control.stats()).creates['breaker-0001']).toBe(1);

    // One log line per transition, in order: opened; then each probe half-opens it and its failure reopens it;
    // the last probe closes it. Each line says where the circuit came from and how it is set.
    const transitions = logged.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => 'circuit' in line);
    const path = transitions.map((line) => `${String(line.from)}>${String(line.circuit)}`);
    expect(path[0]).toBe('closed>open');
    expect(path.slice(-2)).toEqual(['open>half_open', 'half_open>closed']);
    expect(path.slice(1, -2).every((step, i) => step === (i % 2 === 0 ? 'open>half_open' : 'half_open>open'))).toBe(true);
    expect(transitions[0]).toMatchObject({ level: 'warn', failuresToOpen: 3, halfOpenAfterMs: 300 });
    expect(transitions[0]!.msg).toMatch(/opened: reads fail fast and writes are refused/);
    expect(transitions.at(-1)).toMatchObject({ level: 'info', msg: expect.stringMatching(/closed/) });
  });
});

describe('the upstream budget', () => {
  it('a flood of distinct reads never pushes the upstream past the budget in any second; each read answers or says UPSTREAM_BUSY; a create is not held behind them', async ({
    gatewayWith,
  }) => {
    const gw = await gatewayWith({
      env: { UPSTREAM_RATE_LIMIT_PER_SECOND: '20', UPSTREAM_RATE_LIMIT_BURST: '5', UPSTREAM_QUEUE_TIMEOUT_MS: '1500' },
    });
    const { control } = gw.sandbox;
    // The brand's catalog entry is read once, before the flood (the catalog cache keeps it).
    expect((await gw.gql(CREATE, { id: 'before-flood' })).body.data?.createCampaign?.__typename).toBe('CreateCampaignPayload');
    await control.reset();
    const done: string[] = [];
    const reads = Array.from({ length: 120 }, (_, i) =>
      gw.gql(`{ campaign(ref: "flood-${i}") { uuid } }`).then((res) => {
        done.push(res.body.errors ? 'busy' : 'read');
        return res;
      }),
    );
    // The create arrives behind a queue of reads; it must not wait for them.
    const create = gw.gql(CREATE, { id: 'flood-create' }).then((res) => {
      done.push('create');
      return res;
    });
    const answers = await Promise.all(reads);
    const created = await create;

    expect(created.body.data?.createCampaign?.__typename).toBe('CreateCampaignPayload');
    for (const answer of answers) {
      if (answer.body.errors) {
        expect(answer.body.errors.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_BUSY']);
        expect(answer.body.errors[0]!.extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      } else expect(answer.body.data).toEqual({ campaign: null });
    }
    const answered = done.filter((d) => d === 'read').length;
    expect(answered).toBeGreaterThan(5);
    // Reads queued before the create were still being answered after it: it went ahead of them.
    expect(done.slice(done.indexOf('create') + 1)).toContain('read');

    // Per second of the sandbox's clock: at most the burst plus one second's rate, whichever seconds they fell in.
    const { perSecond } = await control.stats();
    for (const [second, n] of Object.entries(perSecond)) expect(n, `second ${second}`).toBeLessThanOrEqual(25);
  });

  it('finds the capacity of the reward API and backs off: the adaptive limit is cut on 429s', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ env: { UPSTREAM_QUEUE_TIMEOUT_MS: '2000' } });
    const { control } = gw.sandbox;
    await control.capacity({ per_second: 10, burst: 10 });
    await Promise.all(Array.from({ length: 40 }, (_, i) => gw.gql(`{ campaign(ref: "cap-${i}") { uuid } }`)));
    const { adaptiveLimit } = gw.client.shield.state();
    expect(adaptiveLimit).not.toBeNull();
    expect(adaptiveLimit!).toBeLessThan(40);
    const { throttledPerSecond } = await control.stats();
    expect(Object.values(throttledPerSecond).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await control.clearFaults();
  });
});
