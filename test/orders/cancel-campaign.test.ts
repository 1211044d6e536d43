// cancelCampaign's orders-side work against a scripted reward API: which rewards it cancels, which it counts as
// already final.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cancelUnredeemed } from '../../src/orders/cancel-campaign.js';
import { captureClient, type Captured } from '../upstream/helpers.js';
import { json, startQuirksServer, type QuirksServer } from '../upstream/quirks-server.js';

let server: QuirksServer;
let c: Captured;

beforeEach(async () => {
  server = await startQuirksServer();
  c = captureClient({ baseUrl: server.baseUrl });
});

afterEach(async () => {
  await c.client.close();
  await server.close();
});

const wireGift = (uuid: string, status: string) => ({
  uuid,
  campaign_uuid: 'c-uuid-1',
  campaign_id: 'order-1',
  status,
  delivery_status: 'DELIVERED',
  price_in_cents: 2500,
  brand_code: 'AMAZONUS',
  recipient_email: 'a@example.com',
  recipient_name: 'Ann Lee',
  redelivery_count: 0,
  created_date: '2026-03-08 02:30:00',
  delivery_date: '2026-11-01 01:30:00',
  redeemed_date: null,
});

const giftPage = (gifts: object[], offset: number, total: number) =>
  json(200, { gifts, number_of_results: gifts.length, limit: 100, offset, total_count: total });

const deletes = () => server.requests.filter((r) => r.method === 'DELETE').map((r) => r.url.split('/').pop()).sort();

describe('cancelUnredeemed', () => {
  it('cancels open rewards and rewards in a status it does not know; known final ones are counted, not touched', async () => {
    server.on(
      'GET /gifts',
      giftPage([wireGift('g-open', 'SENT_AND_REDEEMABLE'), wireGift('g-new', 'ON_HOLD'), wireGift('g-charity', 'TO_CHARITY'), wireGift('g-redeemed', 'REDEEMED')], 0, 4),
    );
    for (const uuid of ['g-open', 'g-new']) server.on(`DELETE /gifts/${uuid}`, json(200, { gift: wireGift(uuid, 'GIVER_CANCELLED') }));

    const outcome = await cancelUnredeemed(c.client, 'c-uuid-1');

    // An unknown status is not final: counting it "already final" would leave its money out and say so wrongly.
    expect(outcome).toEqual({ cancelled: 2, alreadyFinal: 2, failed: [] });
    expect(deletes()).toEqual(['g-new', 'g-open']);
  });
});
