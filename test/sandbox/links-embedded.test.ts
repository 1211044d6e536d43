// POST /direct_links with GET /links/{id}, and POST /embedded.
import { describe, expect } from 'vitest';
import { it, test } from '../support/test.js';
import { startTestSandbox } from '../support/sandbox.js';
import { balance, campaign, create, emailOrder, expectError, gift, giftsOf, linkOrder, uniqueId } from './helpers.js';

test.beforeEach(({ sandbox }) => sandbox.control.reset());

describe('direct links', () => {
  it('answers one URL per link and a DIRECT_LINK campaign without subject or contacts', async ({ sandbox }) => {
    const body = linkOrder({ link_count: 3 });
    const res = await create(sandbox, '/direct_links', body);
    expect(res.info.code).toBe('INFO_CAMPAIGN_CREATED');
    expect(res.direct_links).toHaveLength(3);
    for (const url of res.direct_links) expect(url).toMatch(/^https:\/\/rewards\.sandbox\.invalid\/r\/[\w-]+$/);
    expect(new Set(res.direct_links).size).toBe(3);
    expect(res.campaign).toMatchObject({
      id: body.id,
      delivery_type: 'DIRECT_LINK',
      subject: null,
      contacts: null,
      link_count: 3,
      gift_template: null,
    });
    expect(res.campaign.fees.total_in_cents).toBe(7500);
    expect(await balance(sandbox)).toMatchObject({ available: 1_000_000 - 7500, reserved: 7500 });
    const gifts = await giftsOf(sandbox, res.campaign.uuid);
    expect(gifts.map((g) => [g.status, g.delivery_status])).toEqual(Array(3).fill(['SENT_AND_REDEEMABLE', 'LINKCREATED']));
    expect(gifts[0].delivery_date).toBe(gifts[0].created_date);
    expect(gifts.map((g) => g.shortlink).sort()).toEqual([...res.direct_links].sort());
  });

  it('offers a region’s catalog when no brand is given', async ({ sandbox }) => {
    const res = await create(sandbox, '/direct_links', linkOrder({ brand_codes: undefined, region: 'Global', price_in_cents: 1500 }));
    expect(res.campaign.brand_codes).toEqual(['sbxbooksus', 'sbxgamesglobal', 'sbxmusicglobal']);
    expect(res.campaign.region).toBe('Global');
  });

  it('pages links 50 at a time from GET /links/{id}, by caller id or uuid', async ({ sandbox }) => {
    const body = linkOrder({ link_count: 1000, price_in_cents: 500 });
    const res = await create(sandbox, '/direct_links', body);
    expect(res.direct_links).toHaveLength(1000);
    const first = await sandbox.api('GET', `/links/${body.id}`);
    expect(first.body).toMatchObject({ number_of_results: 50, limit: 50, offset: 0, total_count: 1000, info: { code: 'INFO_LINKS' } });
    expect(first.body.directlinks[0]).toEqual({ number: 1, link: res.direct_links[0] });
    const last = await sandbox.api('GET', `/links/${res.campaign.uuid}?offset=990&limit=20`);
    expect(last.body.number_of_results).toBe(10);
    expect(last.body.limit).toBe(20);
    expect(last.body.directlinks.at(-1)).toEqual({ number: 1000, link: res.direct_links[999] });
    expectError(await sandbox.api('GET', `/links/${body.id}?limit=51`), 422, 'ERROR_INVALID_PARAMETERS');
    expectError(await sandbox.api('GET', `/links/${body.id}?offset=-1`), 422, 'ERROR_INVALID_PARAMETERS');
  });

  it('404s links of an unknown order or of an email order', async ({ sandbox }) => {
    expectError(await sandbox.api('GET', '/links/nope'), 404, 'ERROR_LINKS_NOT_FOUND');
    const email = await create(sandbox, '/campaign', emailOrder());
    expectError(await sandbox.api('GET', `/links/${email.campaign.id}`), 404, 'ERROR_LINKS_NOT_FOUND');
  });

  it.for<[string, Record<string, unknown>]>([
    ['a missing link_count', { link_count: undefined }],
    ['a negative link_count', { link_count: -5 }],
    ['an absurd link_count', { link_count: 1_000_000 }],
    ['a fractional link_count', { link_count: 1.5 }],
    ['a link_count as a string', { link_count: '3' }],
  ])('refuses %s with 422', async ([, patch], { sandbox }) => {
    const res = await sandbox.api('POST', '/direct_links', linkOrder(patch));
    expectError(res, 422, 'ERROR_INVALID_PARAMETERS');
    expect(res.body.error.message).toContain('link_count');
  });

  it('accepts 10,000 links, the documented maximum', async ({ sandbox }) => {
    await sandbox.control.topUp('USD', 4_000_000);
    const res = await create(sandbox, '/direct_links', linkOrder({ link_count: 10_000, price_in_cents: 500 }));
    expect(res.direct_links).toHaveLength(10_000);
    expect(await balance(sandbox)).toMatchObject({ available: 0, reserved: 5_000_000 });
  });
});

describe('embedded rewards', () => {
  it('creates one reward, claimed at once, with an UPFRONT_PER_GIFT_FEE line, spending its cost', async ({ sandbox }) => {
    const body = { id: uniqueId('emb'), brand_code: 'sbxgamesglobal', price_in_cents: 1234 };
    const res = await create(sandbox, '/embedded', body);
    expect(res.info.code).toBe('INFO_CAMPAIGN_CREATED');
    expect(res.gift_link).toMatch(/^https:\/\/rewards\.sandbox\.invalid\/e\//);
    expect(res.campaign).toEqual({
      uuid: expect.any(String),
      id: body.id,
      brand_code: 'sbxgamesglobal',
      price_in_cents: 1234,
      fees: expect.objectContaining({ total_in_cents: 1234 }),
    });
    expect(res.campaign.fees.cost_entries.map((e: any) => e.fee_type)).toEqual(['PREFUND_GIFT_COST', 'BREAKAGE_PERCENTAGE', 'UPFRONT_PER_GIFT_FEE']);
    // Claimed immediately: the money is spent, nothing stays reserved.
    expect(await balance(sandbox)).toEqual({ available: 1_000_000 - 1234, pending: 0, reserved: 0 });

    const c = await campaign(sandbox, body.id);
    expect(c).toMatchObject({ delivery_type: 'EMBEDDED', brand_code: 'sbxgamesglobal', brand_codes: ['sbxgamesglobal'], status: 'CAMPAIGN_CREATED' });
    const [g] = await giftsOf(sandbox, c.uuid);
    expect(g).toMatchObject({ status: 'REDEEMED', delivery_status: 'LINKCREATED', brand_code: 'sbxgamesglobal', shortlink: res.gift_link });
    expect(g.redeemed_date).not.toBeNull();
  });

  it('can be neither resent nor cancelled', async ({ sandbox }) => {
    const res = await create(sandbox, '/embedded', { id: uniqueId('emb'), brand_code: 'sbxcoffeeus', price_in_cents: 500 });
    const [g] = await giftsOf(sandbox, res.campaign.uuid);
    expectError(await sandbox.api('PUT', `/gifts/${g.uuid}`, { resend: true }), 422, 'ERROR_CAMPAIGN_INVALID_STATE');
    expectError(await sandbox.api('DELETE', `/gifts/${g.uuid}`), 422, 'ERROR_CAMPAIGN_INVALID_STATE');
    expect((await gift(sandbox, g.uuid)).status).toBe('REDEEMED');
  });

  it('refuses a brand that is not embeddable, unknown, or at a price it does not offer', async ({ sandbox }) => {
    expectError(
      await sandbox.api('POST', '/embedded', { id: uniqueId(), brand_code: 'sbxcinemaus', price_in_cents: 1000 }),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
    expectError(
      await sandbox.api('POST', '/embedded', { id: uniqueId(), brand_code: 'zzz', price_in_cents: 1000 }),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
    expectError(
      await sandbox.api('POST', '/embedded', { id: uniqueId(), brand_code: 'sbxcoffeeus', price_in_cents: 700 }),
      422,
      'ERROR_CAMPAIGN_INVALID_BRAND',
    );
    expectError(
      await sandbox.api('POST', '/embedded', { id: uniqueId(), brand_code: ['sbxcoffeeus'], price_in_cents: 500 }),
      422,
      'ERROR_INVALID_PARAMETERS',
    );
  });

  it('refuses with ERROR_FUNDS_INSUFFICIENT when available does not cover it (it cannot wait)', async () => {
    const poor = await startTestSandbox({ balances: { CAD: 400 } });
    try {
      const res = await poor.api('POST', '/embedded', { id: 'e1', brand_code: 'sbxcoffeeca', price_in_cents: 500 });
      expectError(res, 422, 'ERROR_FUNDS_INSUFFICIENT');
      expect(await balance(poor, 'CAD')).toEqual({ available: 400, pending: 0, reserved: 0 });
      expect((await poor.control.stats()).creates).toEqual({});
    } finally {
      await poor.close();
    }
  });
});
