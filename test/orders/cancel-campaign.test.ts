// cancelCampaign's orders-side work against a scripted reward API: which rewards it cancels, which it counts as
// already final, and that it pages through every reward (the upstream pager) before cancelling.
import { describe, expect } from 'vitest';
import { cancelUnredeemed } from '../../src/orders/cancel-campaign.js';
import { GIFTS_PAGE_MAX } from '../../src/upstream/gift-pages.js';
import { it } from '../support/test.js';
import { json, type QuirksServer } from '../upstream/quirks-server.js';

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
  json(200, { gifts, number_of_results: gifts.length, limit: GIFTS_PAGE_MAX, offset, total_count: total });

const deletes = (server: QuirksServer) =>
  server.requests
    .filter((r) => r.method === 'DELETE')
    .map((r) => r.url.split('/').pop())
    .sort();

describe('cancelUnredeemed', () => {
  it('cancels open rewards and rewards in a status it does not know; known final ones are counted, not touched', async ({
    quirks: server,
    quirksClient: c,
  }) => {
    server.on(
      'GET /gifts',
      giftPage(
        [
          wireGift('g-open', 'SENT_AND_REDEEMABLE'),
          wireGift('g-new', 'ON_HOLD'),
          wireGift('g-charity', 'TO_CHARITY'),
          wireGift('g-redeemed', 'REDEEMED'),
        ],
        0,
        4,
      ),
    );
    for (const uuid of ['g-open', 'g-new']) server.on(`DELETE /gifts/${uuid}`, json(200, { gift: wireGift(uuid, 'GIVER_CANCELLED') }));

    const outcome = await cancelUnredeemed(c.client, 'c-uuid-1');

    // An unknown status is not final: counting it "already final" would leave its money out and say so wrongly.
    expect(outcome).toEqual({ cancelled: 2, alreadyFinal: 2, failed: [] });
    expect(deletes(server)).toEqual(['g-new', 'g-open']);
  });

  it('reads every page, by what arrived, before cancelling', async ({ quirks: server, quirksClient: c }) => {
    const first = Array.from({ length: GIFTS_PAGE_MAX }, (_, i) => wireGift(`g-${i}`, 'REDEEMED'));
    server.on(
      'GET /gifts',
      giftPage(first, 0, GIFTS_PAGE_MAX + 1),
      giftPage([wireGift('g-last', 'SENT_AND_REDEEMABLE')], GIFTS_PAGE_MAX, GIFTS_PAGE_MAX + 1),
    );
    server.on('DELETE /gifts/g-last', json(200, { gift: wireGift('g-last', 'GIVER_CANCELLED') }));

    expect(await cancelUnredeemed(c.client, 'c-uuid-1')).toEqual({ cancelled: 1, alreadyFinal: GIFTS_PAGE_MAX, failed: [] });
    const reads = server.requests.filter((r) => r.method === 'GET').map((r) => new URL(r.url, 'http://x').searchParams);
    expect(reads.map((q) => [q.get('campaign_uuid'), q.get('limit'), q.get('offset')])).toEqual([
      ['c-uuid-1', String(GIFTS_PAGE_MAX), '0'],
      ['c-uuid-1', String(GIFTS_PAGE_MAX), String(GIFTS_PAGE_MAX)],
    ]);
    // Every read happened before the first cancel: cancelling while paging would shift the offsets.
    expect(server.requests.findIndex((r) => r.method === 'DELETE')).toBe(2);
  });

  it('cancels at most four rewards at a time', async ({ quirks: server, quirksClient: c }) => {
    const open = Array.from({ length: 12 }, (_, i) => wireGift(`g-${i}`, 'SENT_AND_REDEEMABLE'));
    server.on('GET /gifts', giftPage(open, 0, open.length));
    let inFlight = 0;
    let most = 0;
    for (const gift of open) {
      server.on(`DELETE /gifts/${gift.uuid}`, (_req, res) => {
        most = Math.max(most, ++inFlight);
        // Held a moment so that cancels sent together are seen together.
        setTimeout(() => {
          inFlight -= 1;
          json(200, { gift: wireGift(gift.uuid, 'GIVER_CANCELLED') })(_req, res);
        }, 5);
      });
    }

    expect(await cancelUnredeemed(c.client, 'c-uuid-1')).toEqual({ cancelled: 12, alreadyFinal: 0, failed: [] });
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(4);
  });
});
