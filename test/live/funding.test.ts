import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { startLiveGateway, subscribeSse, subscribeWs, wsClient, type LiveGateway } from '../support/live.js';

// An order bigger than the balance waits for funds; a top-up sends it. campaignStatusChanged reports
// AWAITING_FUNDS → CREATED, its rewards appear on giftStatusChanged, and fundsChanged reports the balances.

const CAMPAIGN_STATUS = /* GraphQL */ `subscription ($ref: String!) { campaignStatusChanged(ref: $ref) { id status } }`;
const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: String) {
    giftStatusChanged(campaign: $campaign) { gift { uuid status deliveryStatus } previousStatus previousDeliveryStatus }
  }
`;
const FUNDS = /* GraphQL */ `
  subscription ($currency: String) {
    fundsChanged(currency: $currency) { balances { currency availableInCents pendingInCents reservedInCents } }
  }
`;

let gw: LiveGateway;
let ws: ReturnType<typeof wsClient>;

beforeAll(async () => {
  gw = await startLiveGateway({ sandbox: { balances: { USD: 5_000 } } });
  ws = wsClient(gw.url);
});
afterAll(async () => {
  await ws?.dispose();
  await gw?.close();
});

const balance = (funds: { balances: { currency: string }[] }, currency: string) => funds.balances.find((b) => b.currency === currency);

describe('funding', () => {
  it('reports AWAITING_FUNDS → CREATED, the rewards that appear, and the balances that moved', async () => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 3, priceInCents: 2_500 });
    expect((await gw.sandbox.api('GET', `/campaign/${order.id}`)).body.campaign.status).toBe('AWAITING_FUNDS');
    const key = `campaign:${order.uuid}`;

    const status = subscribeSse(gw.url, CAMPAIGN_STATUS, { ref: order.id });
    const gifts = subscribeWs(ws, GIFT_CHANGES, { campaign: order.uuid });
    const usd = subscribeWs(ws, FUNDS, { currency: 'usd' });
    const cad = subscribeWs(ws, FUNDS, { currency: 'CAD' });
    await gw.watch.until(() => gw.watch.completed(key) >= 1 && gw.watch.completed('funds') >= 1 && gw.gateway.live.stats().subscribers === 4);
    // Status and rewards of one order share one poller.
    expect(gw.gateway.live.stats().pollers).toBe(2);

    await gw.sandbox.control.topUp('USD', 100_000);
    expect((await status.next()).data.campaignStatusChanged).toEqual({ id: order.id, status: 'CREATED' });
    expect(await status.ended).toBe('complete');

    const funded = (await usd.next()).data.fundsChanged;
    const upstream = (await gw.sandbox.api('GET', '/funds')).body.fundsbycurrency.USD;
    expect(balance(funded, 'USD')).toEqual({
      currency: 'USD',
      availableInCents: upstream.available_in_cents,
      pendingInCents: upstream.pending_in_cents,
      reservedInCents: upstream.reserved_in_cents,
    });
    expect(upstream.reserved_in_cents).toBeGreaterThan(0);

    // The rewards come into being with the order; each first shows with no previous values. (A poll that
    // read them before the order's emails went out reports UNSENT first, then the delivery.)
    const seen = new Map<string, string>();
    while (seen.size < 3 || [...seen.values()].some((d) => d !== 'DELIVERED')) {
      const change = (await gifts.next()).data.giftStatusChanged;
      if (!seen.has(change.gift.uuid)) expect(change).toMatchObject({ previousStatus: null, previousDeliveryStatus: null });
      seen.set(change.gift.uuid, change.gift.deliveryStatus);
    }

    // Only a change of its own currency reaches a currency's subscriber.
    await gw.sandbox.control.topUp('CAD', 30_000);
    const cadFunds = (await cad.next()).data.fundsChanged;
    expect(balance(cadFunds, 'CAD')).toMatchObject({ availableInCents: 1_000_000 + 30_000 });
    expect(balance(cadFunds, 'USD')).toEqual(balance(funded, 'USD'));
    expect(cad.received).toHaveLength(1);

    for (const s of [gifts, usd, cad]) s.close();
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 0);
  });
});
