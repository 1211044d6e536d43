// Reward records and their transitions (redeem, bounce, resend, cancel, expire, expiry on the clock), and
// GET /gifts with every filter, sort and paging parameter.
import { describe, expect } from 'vitest';
import { it, test } from '../support/test.js';
import { type TestSandbox } from '../support/sandbox.js';
import { balance, create, emailOrder, expectError, gift, giftsOf, linkOrder, rawControl } from './helpers.js';

test.beforeEach(({ sandbox }) => sandbox.control.reset());

async function oneEmailGift(sandbox: TestSandbox, overrides: Record<string, unknown> = {}) {
  const res = await create(sandbox, '/campaign', emailOrder(overrides));
  const [g] = await giftsOf(sandbox, res.campaign.uuid);
  return g;
}

describe('GET /gifts/{uuid}', () => {
  it('answers {gift, info INFO_GIFTS} and 404s an unknown uuid', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    const res = await sandbox.api('GET', `/gifts/${g.uuid}`);
    expect(res.body.info.code).toBe('INFO_GIFTS');
    expect(res.body.gift).toEqual(g);
    expectError(await sandbox.api('GET', '/gifts/00000000-0000-0000-0000-000000000000'), 404, 'ERROR_GIFT_NOT_FOUND');
  });
});

describe('redeem (control)', () => {
  it('claims a reward: REDEEMED with a redeemed_date, its money spent', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    const res = await sandbox.control.redeem(g.uuid);
    expect(res.gift.status).toBe('REDEEMED');
    expect(res.gift.redeemed_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(await balance(sandbox)).toEqual({ available: 999_000, pending: 0, reserved: 0 });
  });

  it('records the brand the recipient picks from a multi-brand order (the first one by default)', async ({ sandbox }) => {
    const res = await create(sandbox, '/direct_links', linkOrder({ brand_codes: ['sbxbooksus', 'sbxgroceryus'], link_count: 2 }));
    const [a, b] = await giftsOf(sandbox, res.campaign.uuid);
    expect(a).not.toHaveProperty('brand_code');
    expect((await sandbox.control.redeem(a.uuid, 'sbxgroceryus')).gift.brand_code).toBe('sbxgroceryus');
    expect((await sandbox.control.redeem(b.uuid)).gift.brand_code).toBe('sbxbooksus');
  });

  it('refuses a brand the order does not offer, a second claim, and a bounced reward', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    expect((await rawControl(sandbox, 'POST', `/gifts/${g.uuid}/redeem`, JSON.stringify({ brand_code: 'sbxsurfau' }))).status).toBe(422);
    await sandbox.control.redeem(g.uuid);
    const again = await rawControl(sandbox, 'POST', `/gifts/${g.uuid}/redeem`, '{}');
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('ERROR_CAMPAIGN_INVALID_STATE');
    const bounced = await oneEmailGift(sandbox);
    await sandbox.control.bounce(bounced.uuid, true);
    expect((await rawControl(sandbox, 'POST', `/gifts/${bounced.uuid}/redeem`)).status).toBe(422);
    expect((await rawControl(sandbox, 'POST', '/gifts/nope/redeem')).status).toBe(404);
  });
});

describe('bounce and resend', () => {
  it('a soft bounce is TEMPORARILY_UNDELIVERABLE; resend clears it and bumps redelivery_count', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    expect((await sandbox.control.bounce(g.uuid, false)).gift.delivery_status).toBe('TEMPORARILY_UNDELIVERABLE');
    await sandbox.control.advanceClock(60_000);
    const res = await sandbox.api('PUT', `/gifts/${g.uuid}`, { resend: true });
    expect(res.status).toBe(200);
    expect(res.body.info.code).toBe('INFO_GIFTS_RESENT');
    expect(res.body.gift).toMatchObject({ delivery_status: 'DELIVERED', redelivery_count: 1, status: 'SENT_AND_REDEEMABLE' });
    expect(res.body.gift.delivery_date > g.delivery_date).toBe(true);
  });

  it('a hard bounce is UNDELIVERABLE; resend clears it too, and every resend counts (not idempotent)', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    expect((await sandbox.control.bounce(g.uuid, true)).gift.delivery_status).toBe('UNDELIVERABLE');
    await sandbox.api('PUT', `/gifts/${g.uuid}`, { resend: true });
    const twice = await sandbox.api('PUT', `/gifts/${g.uuid}`, { resend: true });
    expect(twice.body.gift).toMatchObject({ delivery_status: 'DELIVERED', redelivery_count: 2 });
  });

  it('resends through PUT /gifts with the uuid in the body (the specification’s form)', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    const res = await sandbox.api('PUT', '/gifts', { uuid: g.uuid, resend: true });
    expect(res.body.gift.redelivery_count).toBe(1);
    expectError(await sandbox.api('PUT', '/gifts', { resend: true }), 422, 'ERROR_INVALID_PARAMETERS');
  });

  it('refuses to resend a link reward, a redeemed reward, or without {"resend": true}', async ({ sandbox }) => {
    const links = await create(sandbox, '/direct_links', linkOrder({ link_count: 1 }));
    const [link] = await giftsOf(sandbox, links.campaign.uuid);
    expectError(await sandbox.api('PUT', `/gifts/${link.uuid}`, { resend: true }), 422, 'ERROR_CAMPAIGN_INVALID_STATE');
    expect((await rawControl(sandbox, 'POST', `/gifts/${link.uuid}/bounce`, '{"permanent":true}')).status).toBe(422);
    const g = await oneEmailGift(sandbox);
    expectError(await sandbox.api('PUT', `/gifts/${g.uuid}`, { resend: false }), 422, 'ERROR_INVALID_PARAMETERS');
    expectError(await sandbox.api('PUT', `/gifts/${g.uuid}`), 400, 'ERROR_MALFORMED_REQUEST');
    await sandbox.control.redeem(g.uuid);
    expectError(await sandbox.api('PUT', `/gifts/${g.uuid}`, { resend: true }), 422, 'ERROR_CAMPAIGN_INVALID_STATE');
    expect((await rawControl(sandbox, 'POST', `/gifts/${g.uuid}/bounce`, '{"permanent":"yes"}')).status).toBe(422);
  });
});

describe('cancel', () => {
  it('cancels an unredeemed reward: GIVER_CANCELED, its share back in available', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox, { price_in_cents: 2500 });
    expect(await balance(sandbox)).toMatchObject({ available: 997_500, reserved: 2_500 });
    const res = await sandbox.api('DELETE', `/gifts/${g.uuid}`);
    expect(res.status).toBe(200);
    expect(res.body.info.code).toBe('INFO_GIFTS_CANCELED');
    expect(res.body.gift.status).toBe('GIVER_CANCELED');
    expect(await balance(sandbox)).toEqual({ available: 1_000_000, pending: 0, reserved: 0 });
    // Again: unchanged, and the money is not returned twice.
    const again = await sandbox.api('DELETE', `/gifts/${g.uuid}`);
    expect(again.status).toBe(200);
    expect(await balance(sandbox)).toEqual({ available: 1_000_000, pending: 0, reserved: 0 });
  });

  it('refuses to cancel a redeemed or expired reward, and 404s an unknown one', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    await sandbox.control.redeem(g.uuid);
    expectError(await sandbox.api('DELETE', `/gifts/${g.uuid}`), 422, 'ERROR_CAMPAIGN_INVALID_STATE');
    expect((await gift(sandbox, g.uuid)).status).toBe('REDEEMED');
    const e = await oneEmailGift(sandbox);
    await sandbox.control.expire(e.uuid);
    expectError(await sandbox.api('DELETE', `/gifts/${e.uuid}`), 422, 'ERROR_CAMPAIGN_INVALID_STATE');
    expectError(await sandbox.api('DELETE', '/gifts/nope'), 404, 'ERROR_GIFT_NOT_FOUND');
  });
});

describe('expiry', () => {
  it('expires a reward on the control call, returning its share', async ({ sandbox }) => {
    const g = await oneEmailGift(sandbox);
    expect((await sandbox.control.expire(g.uuid)).gift.status).toBe('EXPIRED');
    expect(await balance(sandbox)).toEqual({ available: 1_000_000, pending: 0, reserved: 0 });
    expect((await rawControl(sandbox, 'POST', `/gifts/${g.uuid}/expire`)).status).toBe(422);
  });

  /** US rules: DST starts the second Sunday of March and ends the first Sunday of November. */
  function dstDays(year: number): { march: string; november: string } {
    const nthSunday = (month: number, n: number) => {
      const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
      const day = 1 + ((7 - first) % 7) + 7 * (n - 1);
      return `${year}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    };
    return { march: nthSunday(2, 2), november: nthSunday(10, 1) };
  }

  const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

  it('expires unclaimed rewards at the end of the expiry day, Pacific time, on both DST days', async ({ sandbox }) => {
    const now = new Date((await sandbox.control.advanceClock(0)).now);
    const year = now.getUTCFullYear();
    const todayPacific = new Date(now.getTime() - 8 * 3_600_000).toISOString().slice(0, 10);
    const limit = `${year + 1}${todayPacific.slice(4)}`;
    const inWindow = (d: string) => d > nextDay(todayPacific) && d < limit;
    const candidates = [dstDays(year), dstDays(year + 1)];
    const march = candidates.map((c) => c.march).find(inWindow)!;
    const november = candidates.map((c) => c.november).find(inWindow)!;
    // End of the day = the next Pacific midnight: 07:00Z after the 23-hour March day (PDT), 08:00Z after the
    // 25-hour November day (PST). A zone offset taken at the start of the day would be an hour off either way.
    const cases = [
      { expiry: march, end: Date.parse(`${nextDay(march)}T07:00:00Z`) },
      { expiry: november, end: Date.parse(`${nextDay(november)}T08:00:00Z`) },
    ].sort((a, b) => a.end - b.end);

    const gifts = [];
    for (const c of cases) {
      const g = await oneEmailGift(sandbox, { expiry: c.expiry, price_in_cents: 500 });
      expect(g).not.toHaveProperty('expiry'); // production gift records carry none: the order's applies
      gifts.push(g);
    }
    expect((await balance(sandbox)).reserved).toBe(1_000);
    const clockNow = async () => Date.parse((await sandbox.control.advanceClock(0)).now);
    for (const [i, c] of cases.entries()) {
      await sandbox.control.advanceClock(c.end - 30 * 60_000 - (await clockNow()));
      expect((await gift(sandbox, gifts[i].uuid)).status).toBe('SENT_AND_REDEEMABLE');
      await sandbox.control.advanceClock(60 * 60_000);
      expect((await gift(sandbox, gifts[i].uuid)).status).toBe('EXPIRED');
    }
    expect(await balance(sandbox)).toEqual({ available: 1_000_000, pending: 0, reserved: 0 });
  });

  it('leaves redeemed rewards alone when their order expires', async ({ sandbox }) => {
    const res = await create(sandbox, '/direct_links', linkOrder({ link_count: 2, expiry: nextDay(nextDay(new Date().toISOString().slice(0, 10))) }));
    const [a, b] = await giftsOf(sandbox, res.campaign.uuid);
    await sandbox.control.redeem(a.uuid);
    await sandbox.control.advanceClock(5 * 86_400_000);
    expect((await gift(sandbox, a.uuid)).status).toBe('REDEEMED');
    expect((await gift(sandbox, b.uuid)).status).toBe('EXPIRED');
    expect(await balance(sandbox)).toEqual({ available: 1_000_000 - 2500, pending: 0, reserved: 0 });
  });
});

describe('GET /gifts', () => {
  /** Three email orders an hour apart on the sandbox clock, with varied recipients, prices and states. */
  async function fixture(sandbox: TestSandbox) {
    const a = await create(
      sandbox,
      '/campaign',
      emailOrder({
        id: 'ord-a',
        price_in_cents: 500,
        contacts: [
          { email: 'zoe@alpha.test', firstname: 'Zoe', lastname: 'Ng' },
          { email: 'amy@beta.test', firstname: 'Amy', lastname: 'Ko' },
        ],
      }),
    );
    await sandbox.control.advanceClock(3_600_000);
    const b = await create(
      sandbox,
      '/campaign',
      emailOrder({ id: 'ord-b', price_in_cents: 1000, contacts: [{ email: 'max@alpha.test', firstname: 'Max' }] }),
    );
    await sandbox.control.advanceClock(3_600_000);
    const c = await create(
      sandbox,
      '/campaign',
      emailOrder({ id: 'ord-c', price_in_cents: 2500, contacts: [{ email: 'bea@gamma.test', firstname: 'Bea' }, { email: 'cy@gamma.test' }] }),
    );
    const ga = await giftsOf(sandbox, a.campaign.uuid);
    const [gb] = await giftsOf(sandbox, b.campaign.uuid);
    const gc = await giftsOf(sandbox, c.campaign.uuid);
    await sandbox.control.redeem(ga[0].uuid);
    await sandbox.control.bounce(gb.uuid, true);
    await sandbox.api('PUT', `/gifts/${gb.uuid}`, { resend: true });
    await sandbox.api('PUT', `/gifts/${gb.uuid}`, { resend: true });
    await sandbox.api('DELETE', `/gifts/${gc[1].uuid}`);
    return { a, b, c, ga, gb: await gift(sandbox, gb.uuid), gc, ga0: await gift(sandbox, ga[0].uuid) };
  }

  const list = async (sandbox: TestSandbox, query: string) => {
    const res = await sandbox.api('GET', `/gifts?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const emails = (body: any) => body.gifts.map((g: any) => g.recipient_email);

  it('lists newest first by default with paging fields, info INFO_GIFTS and a private cache header', async ({ sandbox }) => {
    await fixture(sandbox);
    const res = await sandbox.api('GET', '/gifts');
    expect(res.headers.get('cache-control')).toBe('private, max-age=5');
    expect(res.body).toMatchObject({ number_of_results: 5, limit: 20, offset: 0, total_count: 5, status: 200, info: { code: 'INFO_GIFTS' } });
    expect(emails(res.body)).toEqual(['cy@gamma.test', 'bea@gamma.test', 'max@alpha.test', 'amy@beta.test', 'zoe@alpha.test']);
    const page = await list(sandbox, 'limit=2&offset=1&order=asc');
    expect(page).toMatchObject({ number_of_results: 2, limit: 2, offset: 1, total_count: 5 });
    expect(emails(page)).toEqual(['amy@beta.test', 'max@alpha.test']);
    expect((await list(sandbox, 'offset=10')).gifts).toEqual([]);
  });

  it('filters by uuid, campaign uuid and campaign id', async ({ sandbox }) => {
    const f = await fixture(sandbox);
    expect(emails(await list(sandbox, `uuid=${f.gb.uuid}`))).toEqual(['max@alpha.test']);
    expect((await list(sandbox, `campaign_uuid=${f.c.campaign.uuid}`)).total_count).toBe(2);
    expect((await list(sandbox, 'campaign_id=ord-a')).total_count).toBe(2);
    expect((await list(sandbox, 'campaign_id=none')).total_count).toBe(0);
  });

  it('filters by claim status (both cancelled spellings) and delivery status', async ({ sandbox }) => {
    await fixture(sandbox);
    expect(emails(await list(sandbox, 'status=REDEEMED'))).toEqual(['zoe@alpha.test']);
    expect(emails(await list(sandbox, 'status=GIVER_CANCELED'))).toEqual(['cy@gamma.test']);
    expect(emails(await list(sandbox, 'status=GIVER_CANCELLED'))).toEqual(['cy@gamma.test']);
    expect((await list(sandbox, 'status=SENT_AND_REDEEMABLE')).total_count).toBe(3);
    expect((await list(sandbox, 'delivery_status=DELIVERED')).total_count).toBe(5);
    expect((await list(sandbox, 'delivery_status=UNDELIVERABLE')).total_count).toBe(0);
  });

  it('filters by recipient substrings, case-insensitively', async ({ sandbox }) => {
    await fixture(sandbox);
    expect(emails(await list(sandbox, 'recipient_email=ALPHA&order=asc'))).toEqual(['zoe@alpha.test', 'max@alpha.test']);
    expect(emails(await list(sandbox, 'recipient_name=e%20NG'))).toEqual(['zoe@alpha.test']);
    expect(emails(await list(sandbox, 'recipient_name=Bea'))).toEqual(['bea@gamma.test']);
  });

  it('filters by price and redelivery count bounds (strict)', async ({ sandbox }) => {
    await fixture(sandbox);
    expect((await list(sandbox, 'price_in_cents_greater_than=500')).total_count).toBe(3);
    expect((await list(sandbox, 'price_in_cents_greater_than=500&price_in_cents_less_than=2500')).total_count).toBe(1);
    expect(emails(await list(sandbox, 'redelivery_count_greater_than=1'))).toEqual(['max@alpha.test']);
    expect((await list(sandbox, 'redelivery_count_less_than=1')).total_count).toBe(4);
  });

  it('filters by created, delivery and redeemed dates, Pacific form or ISO-8601', async ({ sandbox }) => {
    const f = await fixture(sandbox);
    const bCreated: string = f.gb.created_date;
    expect(bCreated).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // Strictly after b's own second: only order c.
    expect((await list(sandbox, `created_date_greater_than=${encodeURIComponent(bCreated)}`)).total_count).toBe(2);
    expect((await list(sandbox, `created_date_less_than=${encodeURIComponent(bCreated)}`)).total_count).toBe(2);
    const { now } = await sandbox.control.advanceClock(0);
    const minus90 = new Date(Date.parse(now) - 90 * 60_000).toISOString();
    expect((await list(sandbox, `created_date_greater_than=${minus90}`)).total_count).toBe(3);
    expect((await list(sandbox, `created_date_less_than=${encodeURIComponent(minus90.replace('Z', '+00:00'))}`)).total_count).toBe(2);
    expect(emails(await list(sandbox, `redeemed_date_greater_than=${minus90}`))).toEqual(['zoe@alpha.test']);
    // The resends moved b's delivery_date to now: after minus90.
    expect((await list(sandbox, `delivery_date_greater_than=${minus90}`)).total_count).toBe(3);
    // A date-only value is Pacific midnight.
    expect((await list(sandbox, 'created_date_greater_than=2000-01-01')).total_count).toBe(5);
  });

  it.for(['campaign_id', 'price_in_cents', 'recipient_name', 'recipient_email', 'delivery_status', 'status'])(
    'sorts by %s in both directions',
    async (field, { sandbox }) => {
      await fixture(sandbox);
      const asc = (await list(sandbox, `sort=${field}&order=asc`)).gifts.map((g: any) => g[field]);
      const desc = (await list(sandbox, `sort=${field}&order=desc`)).gifts.map((g: any) => g[field]);
      const sorted = [...asc].sort((x, y) => (x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1));
      expect(asc).toEqual(sorted);
      expect(desc).toEqual([...sorted].reverse());
      expect(asc).toHaveLength(5);
    },
  );

  it.for([
    'limit=0',
    'limit=101',
    'limit=ten',
    'offset=-1',
    'sort=color',
    'order=up',
    'status=LOST',
    'delivery_status=SENT',
    'recipient_email=ab',
    'price_in_cents_greater_than=1.5',
    'redelivery_count_less_than=x',
    'created_date_greater_than=yesterday',
    'created_date_less_than=2025-13-01%2010:00:00',
    'delivery_date_greater_than=2025-01-01T10:00:00',
    'redeemed_date_less_than=2025-01-01%2025:00:00',
  ])('refuses %s with 422', async (query, { sandbox }) => {
    expectError(await sandbox.api('GET', `/gifts?${query}`), 422, 'ERROR_INVALID_PARAMETERS');
  });
});
