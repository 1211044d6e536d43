// The caller id as idempotency key on every creating POST.
import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';
import { balance, create, emailOrder, expectError, giftsOf, linkOrder } from './helpers.js';

const it = testWith({ sandboxOptions: { latencyMs: 0 } });
it.beforeEach(({ sandbox }) => sandbox.control.reset());

describe('idempotency', () => {
  it.for([
    ['/campaign', () => emailOrder({ id: 'same-id' })],
    ['/direct_links', () => linkOrder({ id: 'same-id' })],
    ['/embedded', () => ({ id: 'same-id', brand_code: 'sbxcoffeeus', price_in_cents: 500 })],
    ['/funds', () => ({ id: 'same-id', currencyisocode: 'USD', fund_amount_in_cents: 30000 })],
  ] as const)('POST %s: the same id and body answer the original response and create nothing more', async ([path, body], { sandbox }) => {
    const first = await sandbox.api('POST', path, body());
    expect(first.status).toBe(200);
    const before = await balance(sandbox);
    const again = await sandbox.api('POST', path, body());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await balance(sandbox)).toEqual(before);
    expect((await sandbox.control.stats()).creates).toEqual({ 'same-id': 1 });
  });

  it('compares bodies after parsing: key order and whitespace do not matter', async ({ sandbox }) => {
    const first = await sandbox.api(
      'POST',
      '/campaign',
      '{"id":"k","price_in_cents":1000,"brand_codes":["sbxcoffeeus"],"contacts":[{"email":"a@b.co"}],"message":"m","subject":"s"}',
    );
    const reordered = await sandbox.api(
      'POST',
      '/campaign',
      '{ "subject": "s", "message": "m", "contacts": [ { "email": "a@b.co" } ], "brand_codes": ["sbxcoffeeus"], "price_in_cents": 1000, "id": "k" }',
    );
    expect(reordered.status).toBe(200);
    expect(reordered.body.campaign.uuid).toBe(first.body.campaign.uuid);
    expect((await giftsOf(sandbox, first.body.campaign.uuid)).length).toBe(1);
  });

  it('refuses the same id with a different body with 422 ERROR_ID_CONFLICT', async ({ sandbox }) => {
    await create(sandbox, '/campaign', emailOrder({ id: 'dup' }));
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ id: 'dup', price_in_cents: 2500 })), 422, 'ERROR_ID_CONFLICT');
    // Ids are one namespace across the creating routes.
    expectError(await sandbox.api('POST', '/direct_links', linkOrder({ id: 'dup' })), 422, 'ERROR_ID_CONFLICT');
    expectError(await sandbox.api('POST', '/funds', { id: 'dup', currencyisocode: 'USD', fund_amount_in_cents: 30000 }), 422, 'ERROR_ID_CONFLICT');
    expect((await sandbox.control.stats()).creates).toEqual({ dup: 1 });
    expect((await balance(sandbox)).reserved).toBe(1000);
  });

  it('replays the original answer even after the order has moved on', async ({ sandbox }) => {
    const first = await sandbox.api('POST', '/campaign', emailOrder({ id: 'moved' }));
    const [g] = await giftsOf(sandbox, first.body.campaign.uuid);
    await sandbox.control.redeem(g.uuid);
    const again = await sandbox.api('POST', '/campaign', emailOrder({ id: 'moved' }));
    expect(again.body.campaign.status).toBe('API_CREATING');
    expect(again.body).toEqual(first.body);
  });

  it('does not consume the id of a refused request', async ({ sandbox }) => {
    expectError(await sandbox.api('POST', '/campaign', emailOrder({ id: 'retry-me', brand_codes: ['nosuch'] })), 422, 'ERROR_CAMPAIGN_INVALID_BRAND');
    await create(sandbox, '/campaign', emailOrder({ id: 'retry-me' }));
    expect((await sandbox.control.stats()).creates).toEqual({ 'retry-me': 1 });
  });

  it('creates one order when two identical POSTs arrive at once', async ({ sandbox }) => {
    // Both requests are held long enough that they overlap even on a loaded machine (20 ms did not);
    // inFlightMax below proves they did.
    await sandbox.control.fault({ route: 'POST /campaign', latency_ms: 1_000, rate: 1 });
    const body = emailOrder({ id: 'race' });
    const [a, b] = await Promise.all([sandbox.api('POST', '/campaign', body), sandbox.api('POST', '/campaign', body)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.campaign.uuid).toBe(b.body.campaign.uuid);
    const stats = await sandbox.control.stats();
    expect(stats.creates).toEqual({ race: 1 });
    expect(stats.requests['POST /campaign']).toBe(2);
    expect(stats.inFlightMax).toBe(2);
    expect(await giftsOf(sandbox, a.body.campaign.uuid)).toHaveLength(1);
    expect((await balance(sandbox)).reserved).toBe(1000);
  });

  it('creates one order from ten concurrent identical POSTs, and refuses concurrent conflicting ones', async ({ sandbox }) => {
    const body = linkOrder({ id: 'race-10' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => sandbox.api('POST', '/direct_links', body)));
    expect(new Set(answers.map((a) => a.body.campaign.uuid)).size).toBe(1);
    const conflicting = await Promise.all([
      sandbox.api('POST', '/direct_links', linkOrder({ id: 'race-x', link_count: 1 })),
      sandbox.api('POST', '/direct_links', linkOrder({ id: 'race-x', link_count: 2 })),
    ]);
    expect(conflicting.map((c) => c.status).sort()).toEqual([200, 422]);
    expect((await sandbox.control.stats()).creates).toEqual({ 'race-10': 1, 'race-x': 1 });
  });
});
