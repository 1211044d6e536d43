import { formatInTimeZone } from 'date-fns-tz';
import { describe, expect } from 'vitest';
import { addDays, pacificToday } from '../../src/shared/pacific-time.js';
import { uniqueId } from '../support/fixtures.js';
import type { TestSandbox } from '../support/sandbox.js';
import { it } from '../support/test.js';

// A reward's expiry: production gift records carry none, so a gift shows its order's; `expiresAt` is the end
// of that day in Pacific time, right on both sides of a daylight-saving change.

const PACIFIC = 'America/Los_Angeles';
async function orderExpiring(sandbox: TestSandbox, expiry: string | null): Promise<{ id: string; giftUuid: string }> {
  const id = uniqueId('expiry');
  const res = await sandbox.api('POST', '/campaign', {
    id,
    price_in_cents: 1000,
    brand_codes: ['sbxcoffeeus'],
    contacts: [{ email: 'ada@example.com' }],
    subject: 'Thanks',
    message: 'Thank you.',
    ...(expiry ? { expiry } : {}),
  });
  expect(res.status).toBe(200);
  const gifts = await sandbox.api('GET', `/gifts?campaign_id=${encodeURIComponent(id)}`);
  expect(gifts.body.gifts[0]).not.toHaveProperty('expiry'); // as in production
  return { id, giftUuid: gifts.body.gifts[0].uuid };
}

/** The first day within the next year on which Pacific time changes offset (a DST day). */
function nextDstDay(today: string): string {
  const offsetAtNoon = (day: string) => formatInTimeZone(new Date(`${day}T20:00:00Z`), PACIFIC, 'xxx');
  for (let i = 2; i < 365; i++) {
    const day = addDays(today, i);
    if (offsetAtNoon(day) !== offsetAtNoon(addDays(day, -1))) return day;
  }
  throw new Error('no DST change within a year');
}

const QUERY = `query($ref: ID!, $gift: ID!) {
  campaign(ref: $ref) { expiry expiresAt }
  gift(uuid: $gift) { expiry expiresAt }
}`;

describe('expiry', () => {
  it("a gift falls back to its order's expiry, and expiresAt is the end of that day in Pacific time", async ({ gateway, sandbox }) => {
    const today = pacificToday();
    const day = addDays(today, 20);
    const order = await orderExpiring(sandbox, day);
    const { body } = await gateway.gql(QUERY, { ref: order.id, gift: order.giftUuid });
    expect(body.errors).toBeUndefined();
    expect(body.data.gift.expiry).toBe(day);
    expect(body.data.campaign.expiry).toBe(day);
    expect(body.data.gift.expiresAt).toBe(body.data.campaign.expiresAt);
    const end = new Date(body.data.gift.expiresAt);
    // The last millisecond of the day is still that day in Pacific time; the instant itself is the next midnight.
    expect(formatInTimeZone(new Date(end.getTime() - 1), PACIFIC, 'yyyy-MM-dd HH:mm:ss.SSS')).toBe(`${day} 23:59:59.999`);
    expect(formatInTimeZone(end, PACIFIC, 'yyyy-MM-dd HH:mm:ss')).toBe(`${addDays(day, 1)} 00:00:00`);
  });

  it('expiresAt is DST-correct: the day of a clock change is 23 or 25 hours long', async ({ gateway, sandbox }) => {
    const dstDay = nextDstDay(pacificToday());
    const before = await orderExpiring(sandbox, addDays(dstDay, -1));
    const on = await orderExpiring(sandbox, dstDay);
    const a = await gateway.gql(QUERY, { ref: before.id, gift: before.giftUuid });
    const b = await gateway.gql(QUERY, { ref: on.id, gift: on.giftUuid });
    const hours = (Date.parse(b.body.data.gift.expiresAt) - Date.parse(a.body.data.gift.expiresAt)) / 3_600_000;
    // Spring forward loses an hour, fall back gains one.
    const springForward = formatInTimeZone(new Date(`${dstDay}T20:00:00Z`), PACIFIC, 'xxx') === '-07:00';
    expect(hours).toBe(springForward ? 23 : 25);
    expect(formatInTimeZone(new Date(b.body.data.campaign.expiresAt), PACIFIC, 'yyyy-MM-dd HH:mm:ss')).toBe(`${addDays(dstDay, 1)} 00:00:00`);
  });

  it('a reward that never expires has neither', async ({ gateway, sandbox }) => {
    const order = await orderExpiring(sandbox, null);
    const { body } = await gateway.gql(QUERY, { ref: order.id, gift: order.giftUuid });
    expect(body.data).toEqual({ campaign: { expiry: null, expiresAt: null }, gift: { expiry: null, expiresAt: null } });
  });
});
