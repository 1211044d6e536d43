import { describe, expect } from 'vitest';
import { eventually } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeSse } from '../support/live.js';
import { test, testWith } from '../support/test.js';

// The read cache in one process (memory mode): concurrent reads share one upstream read, repeated reads cost
// none, and it is kept true by writes, by the pollers' observations and by its TTL; Cache-Control: no-cache
// reads past it; while the upstream fails, what it saw answers marked `extensions.stale`.

const it = testWith({ env: { CACHE_TTL_MS: '60000', POLL_INTERVAL_MS: '100', POLL_INTERVAL_FLOOR_MS: '50' } });

const DASHBOARD = /* GraphQL */ `
  query ($ref: ID!) {
    campaign(ref: $ref) {
      id
      status
      observedAt
      gifts(first: 10) {
        edges {
          node {
            uuid
            status
            observedAt
          }
        }
      }
    }
  }
`;
const GIFT = /* GraphQL */ `
  query ($uuid: ID!) {
    gift(uuid: $uuid) {
      status
      observedAt
    }
  }
`;
const statuses = (body: any): string[] => body.data.campaign.gifts.edges.map((e: any) => e.node.status);
const extensions = (answer: { body: unknown }) => (answer.body as { extensions?: { stale?: boolean } }).extensions;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function giftsOf(sandbox: any, uuid: string): Promise<string[]> {
  const res = await sandbox.api('GET', `/gifts?campaign_uuid=${uuid}&limit=100`);
  return (res.body.gifts as { uuid: string }[]).map((g) => g.uuid);
}

describe('memory mode', () => {
  it('50 concurrent reads of a view cost one upstream read of each of its parts; repeating it costs none', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 3 });
    await gateway.upstreamDelta();
    const answers = await Promise.all(Array.from({ length: 50 }, () => gateway.gql(DASHBOARD, { ref: order.id })));
    for (const answer of answers) expect(answer.body.errors).toBeUndefined();
    expect(await gateway.upstreamDelta()).toEqual({ 'GET /campaign/:id': 1, 'GET /gifts': 1 });
    await Promise.all(Array.from({ length: 50 }, () => gateway.gql(DASHBOARD, { ref: order.id })));
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('Cache-Control: no-cache reads the upstream again, and later reads get that newer answer', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const first = await gateway.gql(DASHBOARD, { ref: order.id });
    await gateway.upstreamDelta();
    await sleep(5);
    const fresh = await gateway.gql(DASHBOARD, { ref: order.id }, { 'cache-control': 'no-cache' });
    expect(await gateway.upstreamDelta()).toEqual({ 'GET /campaign/:id': 1, 'GET /gifts': 1 });
    expect(Date.parse(fresh.body.data.campaign.observedAt)).toBeGreaterThan(Date.parse(first.body.data.campaign.observedAt));
    const again = await gateway.gql(DASHBOARD, { ref: order.id });
    expect(again.body.data.campaign.observedAt).toBe(fresh.body.data.campaign.observedAt);
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('a write drops what it changed before it answers: the next read shows it', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const [uuid] = await giftsOf(sandbox, order.uuid);
    expect(statuses((await gateway.gql(DASHBOARD, { ref: order.id })).body)).toEqual(['SENT_AND_REDEEMABLE', 'SENT_AND_REDEEMABLE']);
    expect((await gateway.gql(GIFT, { uuid })).body.data.gift.status).toBe('SENT_AND_REDEEMABLE');
    const cancelled = await gateway.gql(`mutation ($uuid: ID!) { cancelGift(uuid: $uuid) { __typename } }`, { uuid });
    expect(cancelled.body.data.cancelGift.__typename).toBe('GiftPayload');
    expect((await gateway.gql(GIFT, { uuid })).body.data.gift.status).toBe('CANCELLED');
    expect(statuses((await gateway.gql(DASHBOARD, { ref: order.id })).body).sort()).toEqual(['CANCELLED', 'SENT_AND_REDEEMABLE']);
  });

  it('a redemption on a watched order shows in reads once the poller saw it (within one interval)', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const [uuid] = await giftsOf(sandbox, order.uuid);
    let polls = 0;
    const stopListening = gateway.gateway.live.listen({ onPoll: ({ key }) => void (key === `campaign:${order.uuid}` && polls++) });
    const stream = subscribeSse(url, `subscription ($c: ID) { giftStatusChanged(campaign: $c) { gift { uuid status } } }`, { c: order.id });
    try {
      // The poller's baseline, then a cached view of the order.
      await eventually(() => polls > 0);
      expect((await gateway.gql(GIFT, { uuid })).body.data.gift.status).toBe('SENT_AND_REDEEMABLE');
      expect(statuses((await gateway.gql(DASHBOARD, { ref: order.id })).body)).toContain('SENT_AND_REDEEMABLE');
      await sandbox.control.redeem(uuid!);
      const event = await stream.next();
      expect(event.data.giftStatusChanged.gift).toEqual({ uuid, status: 'REDEEMED' });
      // The poll that delivered the event had dropped the entries first; the TTL (60 s) has not passed.
      expect((await gateway.gql(GIFT, { uuid })).body.data.gift.status).toBe('REDEEMED');
      expect(statuses((await gateway.gql(DASHBOARD, { ref: order.id })).body)).toContain('REDEEMED');
    } finally {
      stream.close();
      stopListening();
    }
  });

  test('an unwatched order is never older than CACHE_TTL_MS', async ({ gatewayWith }) => {
    const gateway = await gatewayWith({ env: { CACHE_TTL_MS: '3000' } });
    const { sandbox } = gateway;
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const [uuid] = await giftsOf(sandbox, order.uuid);
    const before = await gateway.gql(GIFT, { uuid });
    expect(before.body.data.gift.status).toBe('SENT_AND_REDEEMABLE');
    await sandbox.control.redeem(uuid!);
    // Within the TTL the cached answer may still be given (and here is: nothing told this replica)…
    expect((await gateway.gql(GIFT, { uuid })).body.data.gift.status).toBe('SENT_AND_REDEEMABLE');
    // …and once it has passed since the answer was read, never.
    await sleep(Date.parse(before.body.data.gift.observedAt) + 3000 - Date.now() + 1);
    expect((await gateway.gql(GIFT, { uuid })).body.data.gift.status).toBe('REDEEMED');
  });

  test('while every upstream call fails, cached reads answer with extensions.stale; uncached ones fail', async ({ gatewayWith }) => {
    const gateway = await gatewayWith({ env: { CACHE_TTL_MS: '100', UPSTREAM_RETRY_ATTEMPTS: '1' } });
    const { sandbox } = gateway;
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const other = await createEmailOrder(sandbox, { recipients: 1 });
    const warm = await gateway.gql(DASHBOARD, { ref: order.id });
    expect(extensions(warm)?.stale).toBeUndefined();
    await sandbox.control.fault({ status: 503, rate: 1 });
    await sleep(150);
    await gateway.upstreamDelta();
    const started = Date.now();
    const stale = await gateway.gql(DASHBOARD, { ref: order.id });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(stale.body.errors).toBeUndefined();
    expect(extensions(stale)?.stale).toBe(true);
    expect(stale.body.data).toEqual(warm.body.data);
    expect(await gateway.upstreamDelta()).toEqual({ 'GET /campaign/:id': 1, 'GET /gifts': 1 });
    const uncached = await gateway.gql(DASHBOARD, { ref: other.id });
    expect(uncached.body.errors?.length).toBeGreaterThan(0);
    await sandbox.control.clearFaults();
    const back = await gateway.gql(DASHBOARD, { ref: order.id });
    expect(extensions(back)?.stale).toBeUndefined();
    expect(Date.parse(back.body.data.campaign.observedAt)).toBeGreaterThan(Date.parse(warm.body.data.campaign.observedAt));
  });
});
