import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { eventually } from '../support/cluster.js';
import { it } from '../support/test.js';

// The upstream call pipeline (token, slot, breaker, transport) through the whole gateway, against the sandbox:
// every slot and token an attempt takes is given back on every path, and a circuit opened while attempts
// waited closes again once the reward API answers.

const GIFT = 'query ($uuid: ID!) { gift(uuid: $uuid) { uuid } }';
const CAMPAIGN = 'query ($ref: ID!) { campaign(ref: $ref) { uuid } }';
const codes = (res: { body: { errors?: { extensions?: Record<string, unknown> }[] } }) => (res.body.errors ?? []).map((e) => e.extensions?.code);

describe('attempts that waited while the circuit opened', () => {
  it('are refused UPSTREAM_UNAVAILABLE with nothing sent, give their slots back, and the circuit closes within the pause plus one probe', async ({
    gatewayWith,
  }) => {
    const HALF_OPEN_MS = 300;
    const gw = await gatewayWith({
      env: {
        UPSTREAM_MAX_IN_FLIGHT: '2',
        UPSTREAM_KEY_SHARE: '1',
        UPSTREAM_BREAKER_FAILURES: '2',
        UPSTREAM_BREAKER_HALF_OPEN_MS: String(HALF_OPEN_MS),
        UPSTREAM_RETRY_ATTEMPTS: '1',
      },
    });
    const { control } = gw.sandbox;
    await control.fault({ route: 'GET /gifts/:uuid', status: 503, latency_ms: 400, count: 2, rate: 1 });
    await control.fault({ route: 'GET /campaign/:id', status: 503, rate: 1 });
    // Two slow failing reads hold both slots; four more wait for a slot behind them. The first slot freed
    // sends one of them, whose failure opens the circuit; the others then get a slot with the circuit open.
    const slow = [gw.gql(GIFT, { uuid: randomUUID() }), gw.gql(GIFT, { uuid: randomUUID() })];
    await eventually(async () => ((await control.stats()).requests['GET /gifts/:uuid'] ?? 0) === 2);
    const queued = Array.from({ length: 4 }, (_, i) => gw.gql(CAMPAIGN, { ref: `queued-${i}` }));
    for (const res of await Promise.all(slow)) expect(codes(res)).toEqual(['UPSTREAM_UNAVAILABLE']);
    const refused = await Promise.all(queued);
    for (const res of refused) expect(codes(res)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(refused.filter((res) => res.body.errors![0]!.message.includes('nothing was sent')).length).toBeGreaterThan(0);
    expect(gw.client.shield.state().circuit).toBe('open');

    // The upstream is back: the next probe, one pause after the circuit opened, closes it.
    await control.clearFaults();
    const openedAt = Date.now();
    await eventually(() => gw.client.shield.state().circuit === 'closed', 25, { ms: HALF_OPEN_MS + 1_000, what: 'the circuit to close' });
    expect(Date.now() - openedAt).toBeLessThan(HALF_OPEN_MS + 1_000);
    for (let i = 0; i < 4; i++) expect(codes(await gw.gql(CAMPAIGN, { ref: `after-${i}` }))).toEqual([]);
  });
});
