import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import { eventually } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { apiKeys, bearer, it } from '../support/test.js';

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
    const gw = await gatewayWith({
      env: {
        UPSTREAM_MAX_IN_FLIGHT: '2',
        UPSTREAM_KEY_SHARE: '1',
        UPSTREAM_BREAKER_FAILURES: '2',
        UPSTREAM_BREAKER_HALF_OPEN_MS: '300',
        UPSTREAM_RETRY_ATTEMPTS: '1',
      },
    });
    // The transitions as they happen, not the state at the moment the test looks: a loaded machine may look
    // one pause (and a probe) later than it meant to.
    const transitions: string[] = [];
    gw.client.shield.listen((event) => {
      if (event.type === 'circuit') transitions.push(event.to);
    });
    const { control } = gw.sandbox;
    // The whole upstream is down, the breaker's probe (GET /ping) included: the circuit cannot close before the
    // test heals it, however late the test gets round to looking.
    await control.fault({ route: 'GET /ping', status: 503, rate: 1 });
    await control.fault({ route: 'GET /gifts/:uuid', status: 503, latency_ms: 400, count: 2, rate: 1 });
    await control.fault({ route: 'GET /campaign/:id', status: 503, rate: 1 });
    // Two slow failing reads hold both slots; four more wait for a slot behind them. The slots freed go to
    // them with the circuit opening or open: each that gets one with the circuit not closed is refused
    // with nothing sent and must give its slot back (the probe needs one too).
    const slow = [gw.gql(GIFT, { uuid: randomUUID() }), gw.gql(GIFT, { uuid: randomUUID() })];
    await eventually(async () => ((await control.stats()).requests['GET /gifts/:uuid'] ?? 0) === 2);
    const queued = Array.from({ length: 4 }, (_, i) => gw.gql(CAMPAIGN, { ref: `queued-${i}` }));
    for (const res of await Promise.all(slow)) expect(codes(res)).toEqual(['UPSTREAM_UNAVAILABLE']);
    const refused = await Promise.all(queued);
    for (const res of refused) expect(codes(res)).toEqual(['UPSTREAM_UNAVAILABLE']);
    const unsent = refused.filter((res) => res.body.errors![0]!.message.includes('nothing was sent')).length;
    expect(unsent).toBeGreaterThan(0);
    // Each queued read was either sent once (and failed 503) or refused with nothing sent: never both.
    expect(((await control.stats()).requests['GET /campaign/:id'] ?? 0) + unsent).toBe(4);
    // The circuit opened, and while the upstream was down no probe closed it.
    expect(transitions[0]).toBe('open');
    expect(transitions).not.toContain('closed');

    // The upstream is back: the first probe sent after the heal closes the circuit. Counted in probes (a
    // half-open transition each), not milliseconds: a probe already under way may fail (the circuit reopens,
    // the next probe closes it) or succeed (no probe after the heal at all).
    await control.clearFaults();
    const healed = transitions.length;
    await eventually(() => transitions.includes('closed'), 25, { ms: 10_000, what: 'the circuit to close' });
    const afterHeal = transitions.slice(healed);
    expect(afterHeal.filter((to) => to === 'half_open').length).toBeLessThanOrEqual(1);
    expect(transitions.at(-1)).toBe('closed');
    expect(gw.client.shield.state().circuit).toBe('closed');
    // The slots are back: at least three reads were refused holding one, and a refusal that kept its slot would
    // have left none for the probe (the circuit would never have closed) nor for these reads.
    const after = await Promise.all(Array.from({ length: 4 }, (_, i) => gw.gql(CAMPAIGN, { ref: `after-${i}` })));
    for (const res of after) expect(codes(res)).toEqual([]);
  });
});

const CANCEL = `mutation ($uuid: ID!) { cancelGift(uuid: $uuid) { __typename ... on Error { message } } }`;
const CREATE = `mutation ($id: ID!, $brand: String!) {
  createCampaign(input: { id: $id, priceInCents: 1000, reward: { brand: $brand }, contacts: [{ email: "ada@example.com" }], subject: "Thanks", message: "For your help." }) {
    __typename
    ... on Error { message }
  }
}`;
const FLOOD = 'query ($refs: [ID!]!) { campaigns(refs: $refs) { uuid } }';

describe("a neighbour's read flood under a small upstream budget", () => {
  it("leaves another key's writes (their own reads included) going first and its reads their turn", async ({ gatewayWith }) => {
    const keys = apiKeys({ neighbour: ['rewards:read'], shop: ['rewards:read', 'rewards:write'] });
    // Eight tokens a second: the flood's four queries of 20 reads still keep more reads waiting than a read may
    // wait for, and the shop's calls wait half as long for their tokens as at four. A bucket of four lets at most
    // three of the shop's own 20 reads below out at once (reads keep off its last tenth): the rest wait.
    const gw = await gatewayWith({
      env: { UPSTREAM_RATE_LIMIT_PER_SECOND: '8', UPSTREAM_RATE_LIMIT_BURST: '4', GATEWAY_API_KEYS: JSON.stringify(Object.values(keys)) },
    });
    const order = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const [last, ...gifts]: string[] = (await gw.sandbox.api('GET', `/gifts?campaign_id=${order.id}`)).body.gifts.map(
      (g: { uuid: string }) => g.uuid,
    );
    expect(gifts).toHaveLength(2);

    // Four loops of 20-order reads, each loop one query at a time: the budget's read queue never empties.
    let flooding = true;
    const loops = Array.from({ length: 4 }, async (_, loop) => {
      for (let round = 0; flooding; round++) {
        const refs = Array.from({ length: 20 }, (_, i) => `flood-${loop}-${round}-${i}`);
        await gw.gql(FLOOD, { refs }, bearer(keys.neighbour));
        // In process a refusal settles without I/O: a loop of them would starve the event loop of its timers.
        await setImmediate();
      }
    });
    await eventually(() => gw.client.shield.state().waiting.read > 10, 25, { ms: 5_000, what: 'reads waiting for tokens' });

    const answers: string[] = [];
    const brands = ['sbxcoffeeus', 'sbxbooksus'];
    try {
      for (const [i, uuid] of gifts.entries()) {
        // cancelGift reads the reward before it cancels it; createCampaign reads a brand not yet in the catalog cache.
        const cancelled = await gw.gql(CANCEL, { uuid }, bearer(keys.shop));
        answers.push(cancelled.body.data?.cancelGift?.__typename ?? codes(cancelled).join());
        const created = await gw.gql(CREATE, { id: `shop-${i}`, brand: brands[i] }, bearer(keys.shop));
        answers.push(created.body.data?.createCampaign?.__typename ?? codes(created).join());
        // The shop's own read waits its turn among the keys, not behind the neighbour's queue.
        const read = await gw.gql(CAMPAIGN, { ref: order.id }, bearer(keys.shop));
        answers.push(read.body.data?.campaign?.uuid === order.uuid ? 'read' : codes(read).join() || 'read failed');
      }
    } finally {
      flooding = false;
      await Promise.all(loops);
    }
    // The shop's own reads queued too, as many as fit in a read's wait: a mutation's reads are the write's,
    // served before every read waiting, its own caller's included.
    await eventually(() => gw.client.shield.state().waiting.read === 0);
    const own = gw.gql(FLOOD, { refs: Array.from({ length: 20 }, (_, i) => `own-${i}`) }, bearer(keys.shop));
    await eventually(() => gw.client.shield.state().waiting.read >= 10, 25, { ms: 5_000, what: "the shop's reads waiting" });
    const cancelled = await gw.gql(CANCEL, { uuid: last }, bearer(keys.shop));
    answers.push(cancelled.body.data?.cancelGift?.__typename ?? codes(cancelled).join());
    const created = await gw.gql(CREATE, { id: 'shop-last', brand: 'sbxcinemaus' }, bearer(keys.shop));
    answers.push(created.body.data?.createCampaign?.__typename ?? codes(created).join());
    await own;
    expect(answers).toEqual([...gifts.flatMap(() => ['GiftPayload', 'CreateCampaignPayload', 'read']), 'GiftPayload', 'CreateCampaignPayload']);
    const { creates } = await gw.sandbox.control.stats();
    for (const id of ['shop-0', 'shop-1', 'shop-last']) expect(creates[id]).toBe(1);
  });
});
