import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { eventually } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { createTestGateway } from '../support/gateway.js';
import { subscribeSse } from '../support/live.js';
import { startTestSandbox } from '../support/sandbox.js';
import { test } from '../support/test.js';
import { multipartParts } from '../support/multipart.js';

// The read cache in its corners, on at its defaults as users run it (CACHE_TTL_MS 5000; the suites' TEST_ENV
// turns it off): a top-up that releases a waiting order, a write whose outcome is unknown, stale answers under
// @defer and in subscription events, and an answer that arrived late. The stale-if-error cases need entries
// past their TTL, so they shorten it: the rule they test does not depend on its length.

const DEFAULTS = { CACHE_TTL_MS: '5000' };

const ALL_GIFTS = `{ gifts(first: 100) { totalCount } }`;
const ORDER_GIFTS = `query ($ref: ID!) { campaign(ref: $ref) { gifts(first: 10) { edges { node { uuid status } } } } }`;
const GIFT = `query ($uuid: ID!) { gift(uuid: $uuid) { status observedAt } }`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function giftsOf(sandbox: any, uuid: string): Promise<string[]> {
  const res = await sandbox.api('GET', `/gifts?campaign_uuid=${uuid}&limit=100`);
  return (res.body.gifts as { uuid: string }[]).map((g) => g.uuid);
}

describe('writes drop what they may have changed', () => {
  test('a top-up that releases a waiting order shows its rewards in the reward lists at once', async ({ gatewayWith }) => {
    // 4 rewards funded, then 20 that wait for funds.
    const t = await gatewayWith({ env: DEFAULTS, sandbox: { balances: { USD: 4_000 } } });
    await createEmailOrder(t.sandbox, { recipients: 4, priceInCents: 1000 });
    expect((await t.gql(ALL_GIFTS)).body.data.gifts.totalCount).toBe(4);
    const waiting = await createEmailOrder(t.sandbox, { recipients: 20, priceInCents: 1000 });
    expect((await t.sandbox.api('GET', `/campaign/${waiting.id}`)).body.campaign.status).toBe('AWAITING_FUNDS');
    const topUp = await t.gql(`mutation { addFunds(input: { id: "top-up-1", currency: "USD", amountInCents: 25000 }) { __typename } }`);
    expect(topUp.body.data.addFunds.__typename).toBe('AddFundsPayload');
    expect((await t.sandbox.api('GET', '/gifts?limit=100')).body.gifts).toHaveLength(24);
    expect((await t.gql(ALL_GIFTS)).body.data.gifts.totalCount).toBe(24);
  });

  test('a cancel whose answer was lost (OutcomeUnknown) drops the order pages it may have changed', async ({ gatewayWith }) => {
    const t = await gatewayWith({ env: DEFAULTS });
    const order = await createEmailOrder(t.sandbox, { recipients: 2 });
    const [uuid] = await giftsOf(t.sandbox, order.uuid);
    const before = await t.gql(ORDER_GIFTS, { ref: order.id });
    expect(before.body.data.campaign.gifts.edges.map((e: any) => e.node.status)).toEqual(['SENT_AND_REDEEMABLE', 'SENT_AND_REDEEMABLE']);
    // The upstream cancels, then every answer is lost.
    await t.sandbox.control.fault({ route: 'DELETE /gifts/:uuid', reset: true, after: true, rate: 1 });
    const cancel = await t.gql(`mutation ($uuid: ID!) { cancelGift(uuid: $uuid) { __typename } }`, { uuid });
    await t.sandbox.control.clearFaults();
    expect(cancel.body.data.cancelGift.__typename).toBe('OutcomeUnknown');
    expect((await t.sandbox.api('GET', `/gifts/${uuid}`)).body.gift.status).toMatch(/CANCEL/);
    const after = await t.gql(ORDER_GIFTS, { ref: order.id });
    const status = after.body.data.campaign.gifts.edges.find((e: any) => e.node.uuid === uuid).node.status;
    expect(status).toBe('CANCELLED');
    expect((await t.gql(GIFT, { uuid })).body.data.gift.status).toBe('CANCELLED');
  });
});

describe('in cluster mode', () => {
  test('a top-up, a lost resend and a lost cancel on one replica drop on the other what they may have changed', async ({ redis }) => {
    const sandbox = await startTestSandbox({ balances: { USD: 4_000 } });
    const env = { ...DEFAULTS, REDIS_URL: redis.url, REDIS_KEY_PREFIX: `corners-${randomUUID().slice(0, 8)}:` };
    const [reader, writer] = [createTestGateway(sandbox, { env }), createTestGateway(sandbox, { env })];
    const PAGE = `query ($ref: ID!) { campaign(ref: $ref) { gifts(first: 10) { edges { node { uuid status redeliveryCount } } } } }`;
    const nodeOf = async (ref: string, uuid: string) =>
      (await reader.gql(PAGE, { ref })).body.data.campaign.gifts.edges.find((e: any) => e.node.uuid === uuid).node;
    try {
      // Listening: each has waited for Redis, so the cache is shared.
      await Promise.all([reader.listen(), writer.listen()]);
      const order = await createEmailOrder(sandbox, { recipients: 4, priceInCents: 1000 });
      const [first, second] = await giftsOf(sandbox, order.uuid);
      // Only the reader reads: the writer has never seen these rewards nor their order.
      expect((await reader.gql(ALL_GIFTS)).body.data.gifts.totalCount).toBe(4);
      expect(await nodeOf(order.id, first!)).toMatchObject({ status: 'SENT_AND_REDEEMABLE', redeliveryCount: 0 });

      await createEmailOrder(sandbox, { recipients: 20, priceInCents: 1000 });
      const topUp = await writer.gql(`mutation { addFunds(input: { id: "top-up-c", currency: "USD", amountInCents: 25000 }) { __typename } }`);
      expect(topUp.body.data.addFunds.__typename).toBe('AddFundsPayload');
      expect((await reader.gql(ALL_GIFTS)).body.data.gifts.totalCount).toBe(24);

      // A resend reads nothing first: the writer learns the reward's order by reading it after the lost answer.
      await sandbox.control.fault({ route: 'PUT /gifts/:uuid', reset: true, after: true, rate: 1 });
      const resend = await writer.gql(`mutation ($uuid: ID!) { resendGift(uuid: $uuid) { __typename } }`, { uuid: first });
      await sandbox.control.clearFaults();
      expect(resend.body.data.resendGift.__typename).toBe('OutcomeUnknown');
      expect((await nodeOf(order.id, first!)).redeliveryCount).toBe(1);

      await sandbox.control.fault({ route: 'DELETE /gifts/:uuid', reset: true, after: true, rate: 1 });
      const cancel = await writer.gql(`mutation ($uuid: ID!) { cancelGift(uuid: $uuid) { __typename } }`, { uuid: second });
      await sandbox.control.clearFaults();
      expect(cancel.body.data.cancelGift.__typename).toBe('OutcomeUnknown');
      expect((await nodeOf(order.id, second!)).status).toBe('CANCELLED');
    } finally {
      await reader.close();
      await writer.close();
      await sandbox.close();
    }
  });
});

describe('an answer counts its age from when it was asked for', () => {
  // A TTL of 2 s rather than 5 (the rule does not depend on its length), the answer 1.5 s late as before: counted
  // from when it arrived, it would still be served for 1.48 s after the check below.
  const TTL_MS = 2_000;

  test('a slow answer is not served past the TTL as of the change it missed, nor observed after it', async ({ gatewayWith }) => {
    const t = await gatewayWith({ env: { CACHE_TTL_MS: String(TTL_MS) } });
    const order = await createEmailOrder(t.sandbox, { recipients: 1 });
    const [uuid] = await giftsOf(t.sandbox, order.uuid);
    // The upstream reads the reward at once and answers 1.5 s later; the reward is redeemed meanwhile.
    await t.sandbox.control.fault({ route: 'GET /gifts/:uuid', latency_ms: 1_500, rate: 1, count: 1, after: true });
    const asked = Date.now();
    const slow = t.gql(GIFT, { uuid });
    await eventually(async () => ((await t.sandbox.control.stats()).requests['GET /gifts/:uuid'] ?? 0) > 0);
    await sleep(50);
    const changedAt = Date.now();
    await t.sandbox.control.redeem(uuid!);
    const answer = (await slow).body.data.gift;
    expect(answer.status).toBe('SENT_AND_REDEEMABLE');
    // What it shows is as of before the change: so must its observedAt be.
    expect(Date.parse(answer.observedAt)).toBeLessThanOrEqual(changedAt);
    // CACHE_TTL_MS after the read was sent, the change shows.
    await sleep(asked + TTL_MS + 20 - Date.now());
    expect((await t.gql(GIFT, { uuid })).body.data.gift.status).toBe('REDEEMED');
  });
});

describe('every answer and event holding stale data says so', () => {
  const SHORT_TTL = { CACHE_TTL_MS: '200', UPSTREAM_RETRY_ATTEMPTS: '1' };
  const DEFERRED = `query ($ref: ID!) { campaign(ref: $ref) { id ... @defer(label: "rewards") { gifts(first: 10) { edges { node { uuid status } } } } } }`;

  test('a stale part under @defer carries extensions.stale, over multipart/mixed and SSE', async ({ gatewayWith }) => {
    const t = await gatewayWith({ env: SHORT_TTL });
    const order = await createEmailOrder(t.sandbox, { recipients: 2 });
    await t.gql(DEFERRED.replace('@defer(label: "rewards")', ''), { ref: order.id });
    // The order itself answers; its reward page, expired, can only be given stale.
    await t.sandbox.control.fault({ route: 'GET /gifts', status: 503, rate: 1 });
    await sleep(250);
    for (const accept of ['multipart/mixed', 'text/event-stream']) {
      const res = await t.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query: DEFERRED, variables: { ref: order.id } }),
      });
      const text = await res.text();
      const parts =
        accept === 'multipart/mixed'
          ? multipartParts(text)
          : text
              .split('\n\n')
              .filter((e) => e.startsWith('event: next'))
              .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
      const withRewards = parts.filter((part) => (part.incremental ?? []).some((i: any) => i.data?.gifts));
      expect(withRewards.length, accept).toBe(1);
      expect(withRewards[0].incremental[0].data.gifts.edges).toHaveLength(2);
      expect(withRewards[0].extensions?.stale, accept).toBe(true);
    }
    await t.sandbox.control.clearFaults();
  });

  test('a subscription event whose nested data came from an expired entry carries extensions.stale', async ({ gatewayWith }) => {
    const t = await gatewayWith({ env: { ...SHORT_TTL, POLL_INTERVAL_MS: '100', POLL_INTERVAL_FLOOR_MS: '50' }, listen: true });
    const order = await createEmailOrder(t.sandbox, { recipients: 2 });
    const [uuid] = await giftsOf(t.sandbox, order.uuid);
    // The order under both its refs: the event's reward names it by uuid.
    for (const ref of [order.id, order.uuid]) await t.gql(`query ($ref: ID!) { campaign(ref: $ref) { status } }`, { ref });
    const stream = subscribeSse(t.url, `subscription ($c: ID) { giftStatusChanged(campaign: $c) { gift { uuid status campaign { status } } } }`, {
      c: order.id,
    });
    try {
      let polls = 0;
      const stop = t.gateway.live.listen({ onPoll: ({ key }) => void (key === `campaign:${order.uuid}` && polls++) });
      await eventually(() => polls > 1);
      stop();
      // The order's own reads fail from now on; the poller reads reward pages, which still answer.
      await t.sandbox.control.fault({ route: 'GET /campaign/:id', status: 503, rate: 1 });
      await sleep(250);
      await t.sandbox.control.redeem(uuid!);
      const event = await stream.next();
      expect(event.data.giftStatusChanged.gift).toMatchObject({ uuid, status: 'REDEEMED', campaign: { status: expect.any(String) } });
      expect(event.extensions?.stale).toBe(true);
    } finally {
      stream.close();
      await t.sandbox.control.clearFaults();
    }
  });
});
