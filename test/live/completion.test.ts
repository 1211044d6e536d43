import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { requestDelta, startLiveGateway, subscribeSse, subscribeWs, wsClient, type LiveGateway } from '../support/live.js';

// An order's gift subscription completes once the order is created and every reward is final; nothing keeps
// polling for it afterwards.

const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: String, $includeCurrent: Boolean) {
    giftStatusChanged(campaign: $campaign, includeCurrent: $includeCurrent) {
      gift { uuid status }
      previousStatus
    }
  }
`;
const CAMPAIGN_STATUS = /* GraphQL */ `subscription ($ref: String!) { campaignStatusChanged(ref: $ref) { id status } }`;
const DAY_MS = 86_400_000;

let gw: LiveGateway;
let ws: ReturnType<typeof wsClient>;

beforeAll(async () => {
  gw = await startLiveGateway();
  ws = wsClient(gw.url);
});
afterAll(async () => {
  await ws?.dispose();
  await gw?.close();
});

/** YYYY-MM-DD in Pacific time, `days` from now. */
function pacificDate(days: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date(Date.now() + days * DAY_MS));
}

async function expiringOrder(recipients: number) {
  const id = uniqueId('expiring');
  const res = await gw.sandbox.api('POST', '/campaign', {
    id,
    price_in_cents: 1000,
    brand_codes: ['sbxcoffeeus'],
    contacts: Array.from({ length: recipients }, (_, i) => ({ email: `r${i}@example.com` })),
    subject: 'Thanks',
    message: 'Thanks.',
    expiry: pacificDate(2),
  });
  expect(res.status).toBe(200);
  const uuid = res.body.campaign.uuid as string;
  const gifts = (await gw.sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`)).body.gifts as { uuid: string }[];
  return { id, uuid, gifts: gifts.map((g) => g.uuid) };
}

describe('completion', () => {
  it('completes when every reward is redeemed, cancelled or expired, and stops polling', async () => {
    const order = await expiringOrder(4);
    const [redeemed, cancelled, ...expiring] = order.gifts as [string, string, ...string[]];
    const key = `campaign:${order.uuid}`;
    const stream = subscribeWs(ws, GIFT_CHANGES, { campaign: order.id, includeCurrent: true });
    expect(await stream.take(4)).toHaveLength(4);

    // The order is created already: its status subscription has nothing left to report.
    const status = subscribeSse(gw.url, CAMPAIGN_STATUS, { ref: order.id });
    expect(await status.ended).toBe('complete');
    expect(status.received).toEqual([]);

    await gw.sandbox.control.redeem(redeemed);
    expect((await stream.next()).data.giftStatusChanged).toEqual({ gift: { uuid: redeemed, status: 'REDEEMED' }, previousStatus: 'SENT_AND_REDEEMABLE' });
    await gw.sandbox.api('DELETE', `/gifts/${cancelled}`);
    expect((await stream.next()).data.giftStatusChanged).toEqual({ gift: { uuid: cancelled, status: 'CANCELLED' }, previousStatus: 'SENT_AND_REDEEMABLE' });

    // The end of the expiry day: both remaining rewards expire in one step.
    const before = await gw.quietStats(key);
    await gw.sandbox.control.advanceClock(3 * DAY_MS);
    const expired = (await stream.take(2)).map((r) => r.data.giftStatusChanged);
    expect(expired.map((e) => e.gift.uuid).sort()).toEqual([...expiring].sort());
    for (const e of expired) expect(e).toMatchObject({ gift: { status: 'EXPIRED' }, previousStatus: 'SENT_AND_REDEEMABLE' });
    expect(await stream.ended).toBe('complete');
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(key));
    expect(gw.gateway.live.stats()).toEqual({ pollers: 0, subscribers: 0 });

    // Two rewards of one order left the open list together: one listing of the order, not one lookup each.
    const after = await gw.sandbox.control.stats();
    expect(requestDelta(before.stats, after)['GET /gifts/:uuid']).toBeUndefined();

    // Subscribing to a settled order completes after its baseline, without events.
    const again = subscribeWs(ws, GIFT_CHANGES, { campaign: order.uuid });
    expect(await again.ended).toBe('complete');
    expect(again.received).toEqual([]);
  });
});
