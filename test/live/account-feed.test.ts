import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailOrder, uniqueId } from '../support/fixtures.js';
import { requestDelta, startLiveGateway, subscribeSse, type LiveGateway } from '../support/live.js';

// giftStatusChanged without a campaign: every reward of the account. A poll reads the open rewards and a
// created-date window, never the settled history, yet sees the changes that move no date (cancel, bounce)
// and rewards born settled (embedded rewards are claimed on creation).

const ACCOUNT_CHANGES = /* GraphQL */ `
  subscription {
    giftStatusChanged { gift { uuid campaignId status deliveryStatus } previousStatus previousDeliveryStatus }
  }
`;

const DAY_MS = 86_400_000;

let gw: LiveGateway;

beforeAll(async () => {
  gw = await startLiveGateway();
});
afterAll(async () => {
  await gw?.close();
});

const giftsOf = async (uuid: string) =>
  ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);

describe('account feed', () => {
  it('reports new, embedded, cancelled and bounced rewards while reading only open ones and a recent window', async () => {
    const old = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const [settled, toCancel] = (await giftsOf(old.uuid)) as [string, string];
    await gw.sandbox.control.redeem(settled);
    // More settled history than one page: 120 links that expire, then days pass.
    const expiry = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date(Date.now() + 2 * DAY_MS));
    const links = await gw.sandbox.api('POST', '/direct_links', {
      id: uniqueId('links'),
      price_in_cents: 500,
      brand_codes: ['sbxcoffeeus'],
      link_count: 120,
      expiry,
    });
    expect(links.status).toBe(200);
    await gw.sandbox.control.advanceClock(3 * DAY_MS);

    const stream = subscribeSse(gw.url, ACCOUNT_CHANGES);
    await gw.watch.until(() => gw.watch.completed('account') >= 1);
    const first = await gw.quietStats('account');
    await gw.watch.polls('account', 3);
    const last = await gw.quietStats('account');
    // Per quiet poll: one (empty) page of the created-date window and one page of open rewards; the settled
    // history is never read.
    expect(requestDelta(first.stats, last.stats)).toEqual({ 'GET /gifts': 2 * (last.polls - first.polls) });

    const fresh = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const appeared = (await stream.take(2)).map((r) => r.data.giftStatusChanged);
    expect(appeared.map((c) => c.gift.campaignId)).toEqual([fresh.id, fresh.id]);
    for (const c of appeared) expect(c).toMatchObject({ gift: { status: 'SENT_AND_REDEEMABLE' }, previousStatus: null });

    const embeddedId = uniqueId('embedded');
    const embedded = await gw.sandbox.api('POST', '/embedded', { id: embeddedId, brand_code: 'sbxcoffeeus', price_in_cents: 500 });
    expect(embedded.status).toBe(200);
    expect((await stream.next()).data.giftStatusChanged).toMatchObject({
      gift: { campaignId: embeddedId, status: 'REDEEMED' },
      previousStatus: null,
    });

    await gw.sandbox.api('DELETE', `/gifts/${toCancel}`);
    expect((await stream.next()).data.giftStatusChanged).toEqual({
      gift: { uuid: toCancel, campaignId: old.id, status: 'CANCELLED', deliveryStatus: 'DELIVERED' },
      previousStatus: 'SENT_AND_REDEEMABLE',
      previousDeliveryStatus: 'DELIVERED',
    });

    const bounced = appeared[0]!.gift.uuid as string;
    await gw.sandbox.control.bounce(bounced, true);
    expect((await stream.next()).data.giftStatusChanged).toEqual({
      gift: { uuid: bounced, campaignId: fresh.id, status: 'SENT_AND_REDEEMABLE', deliveryStatus: 'UNDELIVERABLE' },
      previousStatus: 'SENT_AND_REDEEMABLE',
      previousDeliveryStatus: 'DELIVERED',
    });

    // The created-date overlap lists recent rewards again on every poll; they are not reported twice.
    await gw.watch.polls('account', 3);
    expect(gw.watch.deliveries('account')).toHaveLength(5);
    stream.close();
  });
});
