// POST /campaign (email and short links), GET /campaign/{id}, GET /links for short links: fees, contacts,
// the processing tick, brand and region checks, expiry, and refusals of bad input.
import { describe, expect } from 'vitest';
import { it, test } from '../support/test.js';
import { startTestSandbox } from '../support/sandbox.js';
import { pacificDate, shiftDate } from '../../src/shared/pacific-time.js';
import { balance, campaign, create, emailOrder, expectError, giftsOf, uniqueId } from './helpers.js';

test.beforeEach(({ sandbox }) => sandbox.control.reset());

describe('email campaigns', () => {
  it('creates the order with fees, contact results and API_CREATING', async ({ sandbox }) => {
    const body = emailOrder({
      price_in_cents: 2500,
      contacts: [
        { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace' },
        { email: 'not-an-address', firstname: 'Bad' },
        { email: 'grace@example.com' },
      ],
    });
    const res = await create(sandbox, '/campaign', body);
    expect(res.info.code).toBe('INFO_CAMPAIGN_CREATED');
    expect(res.status).toBe(200);
    const c = res.campaign;
    expect(c).toMatchObject({
      id: body.id,
      status: 'API_CREATING',
      delivery_type: 'SERVICE_EMAIL',
      company_name: 'Sandbox Company',
      message: '<p>Thank you</p>',
      subject: 'A reward for you',
      suppress_default_greeting: false,
      gift_template: null,
      contacts_success_count: 2,
      contacts_failure_count: 1,
      price_in_cents: 2500,
      brand_codes: ['sbxcoffeeus'],
      region: null,
      expiry: null,
      link_count: null,
    });
    expect(c.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.created_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(c.contacts).toEqual([
      { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace', message: 'New contact', added_succesfully: true },
      { email: 'not-an-address', firstname: 'Bad', lastname: null, message: 'Invalid email address', added_succesfully: false },
      { email: 'grace@example.com', firstname: null, lastname: null, message: 'New contact', added_succesfully: true },
    ]);
    // Fees cover the two accepted contacts only.
    expect(c.fees).toEqual({
      cost_entries: [
        {
          fee_type: 'PREFUND_GIFT_COST',
          percentage: 0,
          amount_in_cents: 5000,
          currency: 'USD',
          tax_type: 'NOTAX',
          tax_in_cents: 0,
          number_of_gifts: 2,
          fee_per_gift_in_cents: 2500,
        },
        {
          fee_type: 'BREAKAGE_PERCENTAGE',
          percentage: 0,
          amount_in_cents: 0,
          currency: 'USD',
          tax_type: 'NOTAX',
          tax_in_cents: 0,
          number_of_gifts: 2,
          fee_per_gift_in_cents: 0,
        },
      ],
      subtotal_in_cents: 5000,
      tax_in_cents: 0,
      tax_type: 'NOTAX',
      total_in_cents: 5000,
    });
    expect(await balance(sandbox)).toEqual({ available: 1_000_000 - 5000, pending: 0, reserved: 5000 });
  });

  it('is processed on the next request: CAMPAIGN_CREATED, emails UNSENT → DELIVERED to the account owner', async ({ sandbox }) => {
    const res = await create(sandbox, '/campaign', emailOrder({ contacts: [{ email: 'bob@example.com', firstname: 'Bob', lastname: 'Stone' }] }));
    const c = await campaign(sandbox, res.campaign.id);
    expect(c.status).toBe('CAMPAIGN_CREATED');
    const [g] = await giftsOf(sandbox, c.uuid);
    expect(g).toMatchObject({
      campaign_uuid: c.uuid,
      campaign_id: c.id,
      status: 'SENT_AND_REDEEMABLE',
      delivery_status: 'DELIVERED',
      price_in_cents: 1000,
      brand_code: 'sbxcoffeeus',
      recipient_email: 'bob@example.com',
      recipient_name: 'Bob Stone',
      delivered_to: 'owner@sandbox.invalid',
      redelivery_count: 0,
      redeemed_date: null,
      shortlink: null,
    });
    expect(g.delivery_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(g.management_dashboard_link).toContain(g.uuid);
  });

  it('reads an order by caller id or by uuid, and 404s an unknown one', async ({ sandbox }) => {
    const id = `order/with spaces & slashes ${'x'.repeat(300)}`;
    const res = await create(sandbox, '/campaign', emailOrder({ id }));
    const byId = await campaign(sandbox, id);
    const byUuid = await campaign(sandbox, res.campaign.uuid);
    expect(byId).toEqual(byUuid);
    expect(byId.id).toBe(id);
    const got = await sandbox.api('GET', `/campaign/${encodeURIComponent(id)}`);
    expect(got.body.info.code).toBe('INFO_CAMPAIGN_RETRIEVED');
    expectError(await sandbox.api('GET', '/campaign/unknown-order'), 404, 'ERROR_CAMPAIGN_NOT_FOUND');
  });

  it('says "Existing contact" for an address seen in an earlier order', async ({ sandbox }) => {
    await create(sandbox, '/campaign', emailOrder({ contacts: [{ email: 'ada@example.com' }] }));
    const res = await create(sandbox, '/campaign', emailOrder({ contacts: [{ email: 'ADA@example.com' }, { email: 'new@example.com' }] }));
    expect(res.campaign.contacts.map((c: any) => c.message)).toEqual(['Existing contact', 'New contact']);
  });

  it('takes message and subject from a template when none are sent', async ({ sandbox }) => {
    const res = await create(sandbox, '/campaign', emailOrder({ message: undefined, subject: undefined, gift_template: 'TPL1' }));
    expect(res.campaign.gift_template).toBe('TPL1');
    expect(res.campaign.message).toContain('TPL1');
    expect(res.campaign.subject).toBe('A reward from Sandbox Company');
  });

  it('requires message and subject without a template', async ({ sandbox }) => {
    const noMessage = await sandbox.api('POST', '/campaign', emailOrder({ message: undefined }));
    expectError(noMessage, 422, 'ERROR_INVALID_PARAMETERS');
    expect(noMessage.body.error.message).toContain('message');
    const noSubject = await sandbox.api('POST', '/campaign', emailOrder({ subject: undefined }));
    expect(noSubject.body.error.message).toContain('subject');
  });

  it('refuses an email order without contacts with ERROR_CAMPAIGN_NO_CONTACTS', async ({ sandbox }) => {
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ contacts: [] })), 422, 'ERROR_CAMPAIGN_NO_CONTACTS');
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ contacts: undefined })), 422, 'ERROR_CAMPAIGN_NO_CONTACTS');
  });

  it('refuses an order whose every contact is invalid, with the partial campaign, and keeps the id free', async ({ sandbox }) => {
    const id = uniqueId();
    const res = await sandbox.api('POST', '/campaign', emailOrder({ id, contacts: [{ email: 'nope' }, { email: 'also nope' }] }));
    expectError(res, 422, 'ERROR_CAMPAIGN_NO_CONTACTS');
    expect(res.body.campaign).toMatchObject({ id, uuid: null, contacts_success_count: 0, contacts_failure_count: 2 });
    expect(await balance(sandbox)).toEqual({ available: 1_000_000, pending: 0, reserved: 0 });
    await create(sandbox, '/campaign', emailOrder({ id }));
  });
});

describe('brands, prices and regions on orders', () => {
  it('offers a region’s full catalog at the price: every brand of the region that allows it', async ({ sandbox }) => {
    const res = await create(sandbox, '/campaign', emailOrder({ brand_codes: undefined, region: 'USA', price_in_cents: 1000 }));
    expect(res.campaign.region).toBe('USA');
    expect(res.campaign.brand_codes).toEqual(['sbxcoffeeus', 'sbxbooksus', 'sbxcinemaus', 'sbxgroceryus', 'sbxprepaidus']);
    const ca = await create(sandbox, '/campaign', emailOrder({ brand_codes: undefined, region: 'Canada', price_in_cents: 2500 }));
    expect(ca.campaign.fees.cost_entries[0].currency).toBe('CAD');
    expect((await balance(sandbox, 'CAD')).reserved).toBe(2500);
    // A multi-brand reward has no brand_code until the recipient picks one.
    const [g] = await giftsOf(sandbox, res.campaign.uuid);
    expect(g).not.toHaveProperty('brand_code');
  });

  it('refuses a region no brand of which offers the price', async ({ sandbox }) => {
    expectError(
      await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: undefined, region: 'Australia', price_in_cents: 700 })),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
  });

  it('refuses an unknown region name, both or neither of brand_codes and region', async ({ sandbox }) => {
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: undefined, region: 'Mars' })), 422, 'ERROR_INVALID_PARAMETERS');
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ region: 'USA' })), 422, 'ERROR_INVALID_PARAMETERS');
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: undefined })), 422, 'ERROR_INVALID_PARAMETERS');
  });

  it('refuses an unknown brand, a price the brand does not offer, and brands of two currencies', async ({ sandbox }) => {
    const unknown = await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: ['nosuchbrand'] }));
    expectError(unknown, 422, 'ERROR_CAMPAIGN_INVALID_BRAND');
    expect(unknown.body.error.message).toContain('nosuchbrand');
    expectError(
      await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: ['sbxcoffeeus'], price_in_cents: 1234 })),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
    expectError(
      await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: ['sbxbooksus'], price_in_cents: 100 })),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
    expectError(
      await sandbox.api('POST', '/campaign', emailOrder({ brand_codes: ['sbxcoffeeus', 'sbxcoffeeca'] })),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
    expect((await sandbox.control.stats()).creates).toEqual({});
  });

  it('accepts a custom list of brands of one currency', async ({ sandbox }) => {
    const res = await create(sandbox, '/campaign', emailOrder({ brand_codes: ['sbxcoffeeus', 'sbxbooksus', 'sbxcoffeeus'] }));
    expect(res.campaign.brand_codes).toEqual(['sbxcoffeeus', 'sbxbooksus']);
  });
});

describe('expiry', () => {
  const today = () => pacificDate(new Date());

  it('accepts a date after today and up to one year out, and shows it on the order (production rewards carry none)', async ({ sandbox }) => {
    const expiry = shiftDate(today(), 0, 1);
    const res = await create(sandbox, '/campaign', emailOrder({ expiry }));
    expect(res.campaign.expiry).toBe(expiry);
    const [g] = await giftsOf(sandbox, res.campaign.uuid);
    expect(g).not.toHaveProperty('expiry');
  });

  it.for<[string, () => string]>([
    ['today', () => today()],
    ['yesterday', () => shiftDate(today(), -1)],
    ['more than a year out', () => shiftDate(today(), 1, 1)],
    ['not a date', () => '2030-02-30'],
    ['in another format', () => '12/31/2030'],
  ])('refuses an expiry %s', async ([, date], { sandbox }) => {
    const res = await sandbox.api('POST', '/campaign', emailOrder({ expiry: date() }));
    expectError(res, 422, 'ERROR_INVALID_PARAMETERS');
    expect(res.body.error.message).toContain('expiry');
  });
});

describe('short links', () => {
  it('creates link_count rewards, LINKCREATED at once, readable from GET /links once processed', async ({ sandbox }) => {
    const body = { id: uniqueId('short'), price_in_cents: 5000, brand_codes: ['sbxsurfau'], delivery_type: 'SHORTLINK', link_count: 3 };
    const res = await sandbox.api('POST', '/campaign', body);
    expect(res.status).toBe(200);
    expect(res.body.campaign).toMatchObject({ delivery_type: 'SHORTLINK', subject: null, contacts: null, link_count: 3, status: 'API_CREATING' });
    expect(typeof res.body.campaign.message).toBe('string');
    expect(res.body.campaign.fees.total_in_cents).toBe(15000);
    expect((await balance(sandbox, 'AUD')).reserved).toBe(15000);

    // The GET below is the next tick: it processes the order before answering.
    const links = await sandbox.api('GET', `/links/${body.id}`);
    expect(links.body).toMatchObject({ number_of_results: 3, limit: 50, offset: 0, total_count: 3, status: 200 });
    expect(links.body.shortlinks.map((l: any) => l.number)).toEqual([1, 2, 3]);
    const gifts = await giftsOf(sandbox, res.body.campaign.uuid);
    expect(gifts.map((g) => g.delivery_status)).toEqual(['LINKCREATED', 'LINKCREATED', 'LINKCREATED']);
    expect(gifts.map((g) => g.shortlink).sort()).toEqual(links.body.shortlinks.map((l: any) => l.shortlink).sort());
    expect(gifts[0].recipient_email).toBeNull();
    expect(gifts[0].delivered_to).toBeNull();
  });

  it('answers INFO_LINKS_GENERATION_IN_PROGRESS while the order is not processed', async () => {
    // Any request after the create processes a funded order, so use an unfunded one: it waits unprocessed.
    const tiny = await startTestSandbox({ balances: { USD: 0 } });
    try {
      const body = { id: 'short-waiting', price_in_cents: 1000, brand_codes: ['sbxcoffeeus'], delivery_type: 'SHORTLINK', link_count: 1 };
      expect((await tiny.api('POST', '/campaign', body)).body.campaign.status).toBe('AWAITING_FUNDS');
      const waiting = await tiny.api('GET', '/links/short-waiting');
      expect(waiting.status).toBe(200);
      expect(waiting.body.info.code).toBe('INFO_LINKS_GENERATION_IN_PROGRESS');
      expect(waiting.body).not.toHaveProperty('shortlinks');
      await tiny.control.topUp('USD', 1000);
      // The top-up funded it; the next request is its processing tick.
      const ready = await tiny.api('GET', '/links/short-waiting');
      expect(ready.body.shortlinks).toHaveLength(1);
    } finally {
      await tiny.close();
    }
  });

  it('requires link_count and refuses contacts on a short-link order', async ({ sandbox }) => {
    const base = { id: uniqueId(), price_in_cents: 1000, brand_codes: ['sbxcoffeeus'], delivery_type: 'SHORTLINK' };
    expectError(await sandbox.api('POST', '/campaign', base), 422, 'ERROR_INVALID_PARAMETERS');
    expectError(await sandbox.api('POST', '/campaign', { ...base, link_count: 1, contacts: [{ email: 'a@b.co' }] }), 422, 'ERROR_INVALID_PARAMETERS');
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ link_count: 2 })), 422, 'ERROR_INVALID_PARAMETERS');
  });
});

describe('bad input on POST /campaign', () => {
  it.for<[string, Record<string, unknown>, string]>([
    ['a missing id', { id: undefined }, 'id'],
    ['an empty id', { id: '' }, 'id'],
    ['an id over 4,096 characters', { id: 'x'.repeat(4097) }, 'id'],
    ['a numeric id', { id: 42 }, 'id'],
    ['a missing price', { price_in_cents: undefined }, 'price_in_cents'],
    ['a price as a string', { price_in_cents: '1000' }, 'price_in_cents'],
    ['a negative price', { price_in_cents: -1000 }, 'price_in_cents'],
    ['a zero price', { price_in_cents: 0 }, 'price_in_cents'],
    ['a fractional price', { price_in_cents: 10.5 }, 'price_in_cents'],
    ['a huge price', { price_in_cents: 1e15 }, 'price_in_cents'],
    ['contacts that are not a list', { contacts: 'ada@example.com' }, 'contacts'],
    ['a contact without email', { contacts: [{ firstname: 'A' }] }, 'contacts.0.email'],
    ['too many contacts', { contacts: Array.from({ length: 1001 }, (_, i) => ({ email: `c${i}@example.com` })) }, 'contacts'],
    ['brand_codes that are not a list', { brand_codes: 'sbxcoffeeus' }, 'brand_codes'],
    ['an unknown delivery_type', { delivery_type: 'CARRIER_PIGEON' }, 'delivery_type'],
    ['a huge link_count', { delivery_type: 'SHORTLINK', contacts: undefined, link_count: 10_001 }, 'link_count'],
    ['a zero link_count', { delivery_type: 'SHORTLINK', contacts: undefined, link_count: 0 }, 'link_count'],
  ])('refuses %s with 422 naming the field', async ([, patch, field], { sandbox }) => {
    const res = await sandbox.api('POST', '/campaign', emailOrder(patch));
    expectError(res, 422, 'ERROR_INVALID_PARAMETERS');
    expect(res.body.error.message.startsWith(field)).toBe(true);
  });

  it('ignores unknown fields', async ({ sandbox }) => {
    const res = await create(sandbox, '/campaign', emailOrder({ color: 'blue' }));
    expect(res.campaign).not.toHaveProperty('color');
  });
});
