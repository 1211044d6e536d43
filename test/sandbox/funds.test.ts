// Balances per currency, top-ups, and the queue of orders waiting for funds (released strictly oldest first).
import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';
import { balance, campaign, create, emailOrder, expectError, gift, giftsOf, linkOrder, rawControl } from './helpers.js';

const it = testWith({ sandboxOptions: { balances: { USD: 10_000, CAD: 50_000 } } });
it.beforeEach(({ sandbox }) => sandbox.control.reset());

/** A USD direct-link order of `links` × $10 (sbxbooksus). */
const usdOrder = (id: string, links: number) => linkOrder({ id, price_in_cents: 1000, link_count: links });

describe('GET /funds', () => {
  it('answers every currency with available, pending and reserved, from the starting balances', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/funds');
    expect(res.body.info.code).toBe('INFO_FUNDS');
    expect(res.body.fundsbycurrency).toEqual({
      USD: { available_in_cents: 10_000, pending_in_cents: 0, reserved_in_cents: 0 },
      CAD: { available_in_cents: 50_000, pending_in_cents: 0, reserved_in_cents: 0 },
      AUD: { available_in_cents: 1_000_000, pending_in_cents: 0, reserved_in_cents: 0 },
    });
  });
});

describe('POST /funds', () => {
  it('adds money to available and answers the new balances', async ({ sandbox }) => {
    const res = await sandbox.api('POST', '/funds', { id: 'top-1', currencyisocode: 'CAD', fund_amount_in_cents: 25_000 });
    expect(res.status).toBe(200);
    expect(res.body.info.code).toBe('INFO_FUNDS_ADDED');
    expect(res.body.fundsbycurrency.CAD.available_in_cents).toBe(75_000);
    expect(await balance(sandbox, 'CAD')).toEqual({ available: 75_000, pending: 0, reserved: 0 });
    expect((await sandbox.control.stats()).creates).toEqual({ 'top-1': 1 });
  });

  it.for([24_999, 1_000_001, 0, -30_000])('refuses %i cents with 400 ERROR_FUNDS_INVALID_FUND_AMOUNT', async (amount, { sandbox }) => {
    expectError(
      await sandbox.api('POST', '/funds', { id: `bad-${amount}`, currencyisocode: 'USD', fund_amount_in_cents: amount }),
      400,
      'ERROR_FUNDS_INVALID_FUND_AMOUNT',
    );
    expect((await balance(sandbox)).available).toBe(10_000);
  });

  it('declines the card for exactly 40,200 cents with 402 ERROR_FUNDS_CARD_ERROR, adding nothing', async ({ sandbox }) => {
    expectError(
      await sandbox.api('POST', '/funds', { id: 'declined', currencyisocode: 'USD', fund_amount_in_cents: 40_200 }),
      402,
      'ERROR_FUNDS_CARD_ERROR',
    );
    expect((await balance(sandbox)).available).toBe(10_000);
    expect((await sandbox.control.stats()).creates).toEqual({});
  });

  it('refuses an unknown currency and a non-integer amount with 422', async ({ sandbox }) => {
    expectError(
      await sandbox.api('POST', '/funds', { id: 'x', currencyisocode: 'EUR', fund_amount_in_cents: 30_000 }),
      422,
      'ERROR_INVALID_PARAMETERS',
    );
    expectError(
      await sandbox.api('POST', '/funds', { id: 'x', currencyisocode: 'USD', fund_amount_in_cents: 30_000.5 }),
      422,
      'ERROR_INVALID_PARAMETERS',
    );
    expectError(await sandbox.api('POST', '/funds', { currencyisocode: 'USD', fund_amount_in_cents: 30_000 }), 422, 'ERROR_INVALID_PARAMETERS');
  });
});

describe('funding orders', () => {
  it('moves a funded order’s total from available to reserved', async ({ sandbox }) => {
    await create(sandbox, '/direct_links', usdOrder('a', 4));
    expect(await balance(sandbox)).toEqual({ available: 6_000, pending: 0, reserved: 4_000 });
  });

  it('accepts an order available cannot cover: AWAITING_FUNDS, FUNDS_REQUIRED, nothing reserved, no rewards', async ({ sandbox }) => {
    const res = await create(sandbox, '/direct_links', usdOrder('big', 11));
    expect(res.info.code).toBe('INFO_CAMPAIGN_CREATED_FUNDS_REQUIRED');
    expect(res.campaign.status).toBe('AWAITING_FUNDS');
    expect(res.direct_links).toEqual([]);
    expect(await balance(sandbox)).toEqual({ available: 10_000, pending: 0, reserved: 0 });
    expect(await giftsOf(sandbox, res.campaign.uuid)).toEqual([]);
    // Still waiting after any number of ticks.
    expect((await campaign(sandbox, 'big')).status).toBe('AWAITING_FUNDS');
    expect((await sandbox.api('GET', '/links/big')).body.info.code).toBe('INFO_LINKS_GENERATION_IN_PROGRESS');
    expect((await sandbox.control.stats()).creates).toEqual({ big: 1 });
  });

  it('releases waiting orders on a top-up, strictly oldest first: a later small order never overtakes', async ({ sandbox }) => {
    await create(sandbox, '/direct_links', usdOrder('first', 8)); // funded: 2,000 left
    const older = await create(sandbox, '/direct_links', usdOrder('older', 5)); // 5,000: waits
    const newer = await create(sandbox, '/direct_links', usdOrder('newer', 1)); // 1,000 would fit, but queues behind
    expect(newer.campaign.status).toBe('AWAITING_FUNDS');
    expect(older.campaign.status).toBe('AWAITING_FUNDS');
    expect(await balance(sandbox)).toEqual({ available: 2_000, pending: 0, reserved: 8_000 });

    // 2,000 + 2,500 = 4,500: still not enough for the oldest, so nothing moves.
    let top = await sandbox.control.topUp('USD', 2_500);
    expect(top.released).toEqual([]);
    expect((await campaign(sandbox, 'newer')).status).toBe('AWAITING_FUNDS');

    // 4,500 + 1,500 = 6,000: the oldest (5,000) then the newer (1,000).
    top = await sandbox.control.topUp('USD', 1_500);
    expect(top.released).toEqual(['older', 'newer']);
    expect(await balance(sandbox)).toEqual({ available: 0, pending: 0, reserved: 14_000 });
    expect((await campaign(sandbox, 'older')).status).toBe('CAMPAIGN_CREATED');
    expect(await giftsOf(sandbox, older.campaign.uuid)).toHaveLength(5);
    expect((await sandbox.api('GET', '/links/newer')).body.directlinks).toHaveLength(1);
  });

  it('stops at the first order available cannot cover', async ({ sandbox }) => {
    await create(sandbox, '/direct_links', usdOrder('fill', 10)); // available 0
    await create(sandbox, '/direct_links', usdOrder('w1', 1));
    await create(sandbox, '/direct_links', usdOrder('w2', 5));
    await create(sandbox, '/direct_links', usdOrder('w3', 1));
    const top = await sandbox.control.topUp('USD', 3_000);
    expect(top.released).toEqual(['w1']);
    expect(await balance(sandbox)).toMatchObject({ available: 2_000, reserved: 11_000 });
  });

  it('releases waiting orders from a POST /funds top-up too', async ({ sandbox }) => {
    await create(sandbox, '/direct_links', usdOrder('wait', 20));
    await sandbox.api('POST', '/funds', { id: 'card', currencyisocode: 'USD', fund_amount_in_cents: 25_000 });
    expect(await balance(sandbox)).toEqual({ available: 15_000, pending: 0, reserved: 20_000 });
    expect((await campaign(sandbox, 'wait')).status).toBe('CAMPAIGN_CREATED');
  });

  it('keeps currencies apart: a CAD top-up does not release a USD order', async ({ sandbox }) => {
    await create(sandbox, '/direct_links', usdOrder('usd-wait', 20));
    expect((await sandbox.control.topUp('CAD', 100_000)).released).toEqual([]);
    expect((await campaign(sandbox, 'usd-wait')).status).toBe('AWAITING_FUNDS');
  });

  it('funds an email order once released, and only then delivers its emails', async ({ sandbox }) => {
    const res = await create(
      sandbox,
      '/campaign',
      emailOrder({ id: 'mail-wait', price_in_cents: 2500, contacts: [1, 2, 3, 4, 5].map((i) => ({ email: `p${i}@example.com` })) }),
    );
    expect(res.campaign.status).toBe('AWAITING_FUNDS');
    expect(res.campaign.fees.total_in_cents).toBe(12_500);
    await sandbox.control.topUp('USD', 2_500);
    const gifts = await giftsOf(sandbox, res.campaign.uuid);
    expect(gifts.map((g) => g.delivery_status)).toEqual(Array(5).fill('DELIVERED'));
  });

  it('says FUNDS_PENDING when pending money would cover the order, and releases it when the clock moves', async ({ sandbox }) => {
    await rawControl(sandbox, 'POST', '/funds', JSON.stringify({ currency: 'USD', amount_in_cents: 5_000, pending: true }));
    expect(await balance(sandbox)).toEqual({ available: 10_000, pending: 5_000, reserved: 0 });
    const pendingCovered = await create(sandbox, '/direct_links', usdOrder('p1', 12));
    expect(pendingCovered.info.code).toBe('INFO_CAMPAIGN_CREATED_FUNDS_PENDING');
    // The queue ahead (12,000) plus this one exceed available + pending.
    const notCovered = await create(sandbox, '/direct_links', usdOrder('p2', 4));
    expect(notCovered.info.code).toBe('INFO_CAMPAIGN_CREATED_FUNDS_REQUIRED');
    const clock = await sandbox.control.advanceClock(1);
    expect(clock.released).toEqual(['p1']);
    expect(await balance(sandbox)).toEqual({ available: 3_000, pending: 0, reserved: 12_000 });
  });

  it('releases waiting orders when a cancel returns funds', async ({ sandbox }) => {
    const first = await create(sandbox, '/direct_links', usdOrder('hold', 10));
    await create(sandbox, '/direct_links', usdOrder('next', 1));
    const [g] = await giftsOf(sandbox, first.campaign.uuid);
    await sandbox.api('DELETE', `/gifts/${g.uuid}`);
    expect((await campaign(sandbox, 'next')).status).not.toBe('AWAITING_FUNDS');
    expect(await balance(sandbox)).toEqual({ available: 0, pending: 0, reserved: 10_000 });
  });

  it('gives a cancelled reward’s share back and spends a redeemed one’s', async ({ sandbox }) => {
    const res = await create(sandbox, '/direct_links', usdOrder('mixed', 3));
    const [a, b] = await giftsOf(sandbox, res.campaign.uuid);
    await sandbox.control.redeem(a.uuid);
    expect(await balance(sandbox)).toEqual({ available: 7_000, pending: 0, reserved: 2_000 });
    await sandbox.api('DELETE', `/gifts/${b.uuid}`);
    expect(await balance(sandbox)).toEqual({ available: 8_000, pending: 0, reserved: 1_000 });
    expect((await gift(sandbox, b.uuid)).status).toBe('GIVER_CANCELED');
  });
});

describe('control top-up', () => {
  it('refuses a bad currency or amount with 422', async ({ sandbox }) => {
    expect((await rawControl(sandbox, 'POST', '/funds', JSON.stringify({ currency: 'GBP', amount_in_cents: 100 }))).status).toBe(422);
    expect((await rawControl(sandbox, 'POST', '/funds', JSON.stringify({ currency: 'USD', amount_in_cents: -100 }))).status).toBe(422);
    expect((await rawControl(sandbox, 'POST', '/funds', '{oops')).status).toBe(400);
  });
});
