// Production-shaped answers from a scripted server: both spellings, unknown fields and values, numbers sent as
// strings, DST-edge dates, and the request side in production names.
import { describe, expect } from 'vitest';
import { it } from '../support/test.js';
import { captureClient, TOKEN } from './helpers.js';
import { json } from './quirks-server.js';

const info = (code: string) => ({ code, name: 'n', message: 'm' });

const wireCampaign = {
  id: 'order-1',
  uuid: 'c-uuid-1',
  status: 'CAMPAIGN_CREATED',
  delivery_type: 'ACME_EMAIL',
  company_name: 'Acme',
  message: '<p>Thanks</p>',
  subject: 'A gift',
  suppress_default_greeting: false,
  gift_template: 'TPL1',
  contacts: [
    { email: 'a@example.com', firstname: 'Ann', lastname: 'Lee', message: 'New contact', added_succesfully: true },
    { email: 'b@example.com', firstname: null, lastname: null, message: 'Existing contact', added_successfully: 'false' },
  ],
  contact_success_count: '1',
  contacts_failure_count: 1,
  price_in_cents: '2500',
  brand_codes: ['AMAZONUS'],
  region: null,
  fees: {
    cost_entries: [
      {
        fee_type: 'PREFUND_GIFT_COST',
        percentage: '0.000',
        amount_in_cents: 5000,
        currency: 'USD',
        tax_type: 'NOTAX',
        tax_in_cents: 0,
        number_of_gifts: 2,
        fee_per_gift_in_cents: 2500,
      },
      { fee_type: 'SOMETHING_NEW', amount_in_cents: 0 },
    ],
    subtotal_in_cents: 5000,
    tax_in_cents: 0,
    tax_type: 'NOTAX',
    total_in_cents: 5000,
  },
  expiry: '2027-01-31',
  link_count: null,
  some_new_field: { nested: true },
};

const wireGift = (over: object) => ({
  uuid: 'g-1',
  campaign_uuid: 'c-uuid-1',
  campaign_id: 'order-1',
  status: 'SENT_AND_REDEEMABLE',
  delivery_status: 'DELIVERED',
  price_in_cents: 2500,
  brand_code: 'AMAZONUS',
  recipient_email: 'a@example.com',
  recipient_name: 'Ann Lee',
  redelivery_count: 0,
  created_date: '2026-03-08 02:30:00',
  delivery_date: '2026-11-01 01:30:00',
  redeemed_date: null,
  management_dashboard_link: 'https://dash.example/g-1',
  marketplacegift_id: 99,
  ...over,
});

describe('tolerant reader', () => {
  it('sends the auth, encoding and accept headers on every request over a kept-alive connection', async ({ quirks: server }) => {
    server.on('GET /ping', json(200, { username: 'acme', displayname: 'Acme Inc', info: info('INFO_CREDENTIALS') }));
    server.on('DELETE /gifts/g-1', json(200, { gift: wireGift({ status: 'GIVER_CANCELLED' }) }));
    // One connection, so the second request either reuses the socket or has to open a new one.
    const single = captureClient({ baseUrl: server.baseUrl, connections: 1 });
    await single.client.ping();
    await single.client.cancelGift('g-1');
    await single.client.close();
    for (const { headers: h } of server.requests) {
      expect(h.authorization).toBe(`Bearer ${TOKEN}`);
      expect(h['accept-encoding']).toBe('identity');
      expect(h.accept).toBe('application/json');
    }
    expect(server.requests[1]!.remotePort).toBe(server.requests[0]!.remotePort);
  });

  it('reads ping with either spelling of the credentials code', async ({ quirks: server, quirksClient: c }) => {
    server.on(
      'GET /ping',
      json(200, { username: 'acme', displayname: 'Acme Inc', info: info('INFO_CREDNTIALS'), status: 200 }),
      json(200, { username: 'acme', info: info('INFO_CREDENTIALS') }),
    );
    expect(await c.client.ping()).toEqual({ username: 'acme', displayName: 'Acme Inc' });
    expect(await c.client.ping()).toEqual({ username: 'acme', displayName: 'acme' });
  });

  it('reads a campaign with both contact spellings, counts as strings and unknown fee types', async ({ quirks: server, quirksClient: c }) => {
    server.on('GET /campaign/order-1', json(200, { campaign: wireCampaign, info: info('INFO_CAMPAIGN_RETRIEVED') }));
    const campaign = await c.client.getCampaign('order-1');
    expect(campaign).toMatchObject({
      id: 'order-1',
      uuid: 'c-uuid-1',
      deliveryType: 'ACME_EMAIL',
      contactsSuccessCount: 1,
      contactsFailureCount: 1,
      priceInCents: 2500,
      brandCodes: ['AMAZONUS'],
      region: null,
      expiry: '2027-01-31',
      linkCount: null,
    });
    expect(campaign?.contacts).toEqual([
      { email: 'a@example.com', firstName: 'Ann', lastName: 'Lee', message: 'New contact', addedSuccessfully: true },
      { email: 'b@example.com', firstName: null, lastName: null, message: 'Existing contact', addedSuccessfully: false },
    ]);
    expect(campaign?.fees?.costEntries.map((e) => [e.feeType, e.percentage, e.taxInCents])).toEqual([
      ['PREFUND_GIFT_COST', 0, 0],
      ['SOMETHING_NEW', null, 0],
    ]);
    expect(campaign).not.toHaveProperty('some_new_field');
  });

  it('derives funding from the create info code, then from the status', async ({ quirks: server, quirksClient: c }) => {
    const created = (code: string, status = 'API_CREATING') => json(200, { info: info(code), status: 200, campaign: { ...wireCampaign, status } });
    server.on(
      'POST /campaign',
      created('INFO_CAMPAIGN_CREATED'),
      created('INFO_CAMPAIGN_CREATED_FUNDS_REQUIRED'),
      created('INFO_CAMPAIGN_CREATED_FUNDS_PENDING', 'AWAITING_FUNDS'),
      created('INFO_CAMPAIGN_CREATED', 'AWAITING_FUNDS'),
    );
    const req = { id: 'order-1', priceInCents: 2500, brandCodes: ['AMAZONUS'], contacts: [{ email: 'a@example.com' }] };
    const fundings = [];
    for (let i = 0; i < 4; i++) fundings.push((await c.client.createCampaign(req)).funding);
    expect(fundings).toEqual(['FUNDED', 'AWAITING_FUNDS', 'FUNDS_PENDING', 'AWAITING_FUNDS']);
  });

  it('writes create bodies in production form', async ({ quirks: server, quirksClient: c }) => {
    const ok = json(200, { info: info('INFO_CAMPAIGN_CREATED'), campaign: wireCampaign });
    server.on('POST /campaign', ok);
    await c.client.createCampaign({
      id: 'order-1',
      priceInCents: 2500,
      deliveryType: 'EMAIL',
      contacts: [{ email: 'a@example.com', firstName: 'Ann', lastName: 'Lee' }],
      brandCodes: ['AMAZONUS'],
      message: 'Thanks',
      subject: 'A gift',
      expiry: '2027-01-31',
    });
    await c.client.createCampaign({ id: 'order-2', priceInCents: 1000, deliveryType: 'SHORTLINK', region: 'USA', linkCount: 3 });
    const [email, short] = server.requests.map((r) => JSON.parse(r.body));
    expect(email).toEqual({
      id: 'order-1',
      price_in_cents: 2500,
      contacts: [{ email: 'a@example.com', firstname: 'Ann', lastname: 'Lee' }],
      brand_codes: ['AMAZONUS'],
      message: 'Thanks',
      subject: 'A gift',
      expiry: '2027-01-31',
    });
    expect(short).toEqual({ id: 'order-2', price_in_cents: 1000, region: 'USA', delivery_type: 'SHORTLINK', link_count: 3 });
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('folds GIVER_CANCELED into GIVER_CANCELLED, keeps unknown statuses and reads DST-edge dates', async ({ quirks: server, quirksClient: c }) => {
    server.on(
      'GET /gifts',
      json(
        200,
        {
          gifts: [
            wireGift({ uuid: 'g-1', status: 'GIVER_CANCELED' }),
            wireGift({ uuid: 'g-2', status: 'GIVER_CANCELLED', delivery_status: 'UNSUBSCRIBED' }),
            wireGift({ uuid: 'g-3', status: 'ON_HOLD_FOR_REVIEW', delivery_status: 'QUARANTINED', redelivery_count: '2', brand_code: undefined }),
          ],
          number_of_results: '3',
          limit: 20,
          offset: 0,
          total_count: 3,
          info: { code: 'INFO_GIFTS' },
          status: 200,
        },
        { 'cache-control': 'private, max-age=5' },
      ),
    );
    const page = await c.client.listGifts({});
    expect(page.items.map((g) => [g.uuid, g.status, g.deliveryStatus])).toEqual([
      ['g-1', 'GIVER_CANCELLED', 'DELIVERED'],
      ['g-2', 'GIVER_CANCELLED', 'UNSUBSCRIBED'],
      ['g-3', 'ON_HOLD_FOR_REVIEW', 'QUARANTINED'],
    ]);
    expect(page).toMatchObject({ numberOfResults: 3, limit: 20, offset: 0, totalCount: 3 });
    const g = page.items[0]!;
    expect(g.createdDate?.toISOString()).toBe('2026-03-08T10:30:00.000Z');
    expect(g.deliveryDate?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
    expect(g.redeemedDate).toBeNull();
    expect(page.items[2]).toMatchObject({ redeliveryCount: 2, brandCode: null });
    expect(g).not.toHaveProperty('marketplacegift_id');
  });

  it('writes gift and brand filters in production names, dates as Pacific wall time', async ({ quirks: server, quirksClient: c }) => {
    server.on('GET /gifts', json(200, { gifts: [] }));
    server.on('GET /brands', json(200, { brands: [{ brand_code: 'X', name: 'X', image_url: 'https://img/x', extra: 1 }] }));
    const page = await c.client.listGifts({
      campaignUuid: 'c-uuid-1',
      status: 'GIVER_CANCELLED',
      priceInCentsGreaterThan: 100,
      createdDateGreaterThan: new Date('2026-03-08T10:30:00Z'),
      createdDateLessThan: new Date('2026-07-01T19:00:00Z'),
      limit: 5,
      offset: 10,
      sort: 'price_in_cents',
      order: 'asc',
    });
    expect(page).toEqual({ items: [], numberOfResults: 0, limit: 5, offset: 10, totalCount: 10 });
    const brands = await c.client.listBrands({ regionId: 2, currency: 'USD', minPriceInCents: 500, embeddable: true, search: 'ama zon' });
    expect(brands.items).toEqual([{ brandCode: 'X', name: 'X', imageUrl: 'https://img/x', disclaimer: null }]);
    const [gifts, brandList] = server.requests.map((r) => new URL(r.url, 'http://x').searchParams);
    expect(Object.fromEntries(gifts!)).toEqual({
      campaign_uuid: 'c-uuid-1',
      status: 'GIVER_CANCELLED',
      price_in_cents_greater_than: '100',
      created_date_greater_than: '2026-03-08 03:30:00',
      created_date_less_than: '2026-07-01 12:00:00',
      limit: '5',
      offset: '10',
      sort: 'price_in_cents',
      order: 'asc',
    });
    expect(Object.fromEntries(brandList!)).toEqual({
      region: '2',
      min_price_in_cents: '500',
      currencyisocode: 'USD',
      search: 'ama zon',
      embeddable: 'true',
    });
  });

  it('reads fixed and ranged brands', async ({ quirks: server, quirksClient: c }) => {
    server.on(
      'GET /brands/FIXED',
      json(200, {
        brand: {
          brand_code: 'FIXED',
          name: 'Fixed',
          image_url: null,
          regions: ['2', 3],
          fund_currencyisocode: 'USD',
          variable_price: false,
          allowed_prices_in_cents: [1000, '2500'],
          embeddable: true,
        },
      }),
    );
    server.on(
      'GET /brands/RANGE',
      json(200, {
        brand: {
          brand_code: 'RANGE',
          name: 'Range',
          image_url: 'https://img/r',
          description: 'd',
          regions: [1],
          fund_currencyisocode: 'CAD',
          variable_price: true,
          min_price_in_cents: 500,
          max_price_in_cents: 50000,
          expiry_period: '12 months',
        },
      }),
    );
    expect(await c.client.getBrand('FIXED')).toMatchObject({
      regionIds: [2, 3],
      currency: 'USD',
      variablePrice: false,
      allowedPricesInCents: [1000, 2500],
      embeddable: true,
      minPriceInCents: null,
    });
    expect(await c.client.getBrand('RANGE')).toMatchObject({
      variablePrice: true,
      minPriceInCents: 500,
      maxPriceInCents: 50000,
      allowedPricesInCents: null,
      embeddable: false,
      expiryPeriod: '12 months',
    });
  });

  it('turns fundsbycurrency into balances sorted by currency', async ({ quirks: server, quirksClient: c }) => {
    server.on(
      'GET /funds',
      json(200, {
        info: info('INFO_FUNDS'),
        fundsbycurrency: {
          USD: { available_in_cents: 100, pending_in_cents: 0, reserved_in_cents: 5 },
          AUD: { available_in_cents: '7', pending_in_cents: 1, reserved_in_cents: 0, mystery: 1 },
          PRO: { available_in_cents: 50 },
        },
      }),
    );
    expect((await c.client.getFunds()).balances).toEqual([
      { currency: 'AUD', availableInCents: 7, pendingInCents: 1, reservedInCents: 0 },
      { currency: 'PRO', availableInCents: 50, pendingInCents: 0, reservedInCents: 0 },
      { currency: 'USD', availableInCents: 100, pendingInCents: 0, reservedInCents: 5 },
    ]);
  });

  it('refuses money past 2^53 − 1, sent as a number or as a string: a recorded top-up is then an unknown outcome', async ({
    quirks: server,
    quirksClient: c,
  }) => {
    // Read as a number it would be rounded (and the SafeInt scalar would refuse to send it), so the answer is
    // unreadable: for a write that is an unknown outcome, never a success with the wrong amount.
    server.on('POST /funds', json(200, { info: info('INFO_FUNDS_ADDED'), fundsbycurrency: { USD: { available_in_cents: '9007199254790993' } } }));
    const error = await c.client.addFunds({ id: 't-1', currency: 'USD', amountInCents: 50_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid_response', outcomeUnknown: true });
    server.on('GET /funds', json(200, { fundsbycurrency: { USD: { available_in_cents: 2 ** 53 } } }));
    await expect(c.client.getFunds()).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it('reads link pages of both kinds and the still-generating answer', async ({ quirks: server, quirksClient: c }) => {
    server.on(
      'GET /links/short-1',
      json(200, {
        shortlinks: [
          { number: 2, shortlink: 'https://s/2' },
          { number: 1, shortlink: 'https://s/1' },
        ],
        number_of_results: 2,
        limit: 50,
        offset: 0,
        total_count: 2,
      }),
    );
    server.on('GET /links/direct-1', json(200, { directlinks: [{ number: '1', link: 'https://d/1' }], total_count: 1 }));
    server.on('GET /links/busy', json(200, { info: info('INFO_LINKS_GENERATION_IN_PROGRESS'), status: 200 }));
    expect(await c.client.getLinks('short-1')).toEqual({
      ready: true,
      kind: 'SHORTLINK',
      links: [
        { number: 1, url: 'https://s/1' },
        { number: 2, url: 'https://s/2' },
      ],
      limit: 50,
      offset: 0,
      totalCount: 2,
    });
    expect(await c.client.getLinks('direct-1', { limit: 10, offset: 0 })).toMatchObject({
      kind: 'DIRECT_LINK',
      links: [{ number: 1, url: 'https://d/1' }],
      limit: 10,
    });
    expect(await c.client.getLinks('busy')).toMatchObject({ ready: false, kind: null, links: [] });
    expect(new URL(server.requests[1]!.url, 'http://x').search).toBe('?limit=10&offset=0');
  });

  it('reads direct-link and embedded create answers', async ({ quirks: server, quirksClient: c }) => {
    server.on(
      'POST /direct_links',
      json(200, {
        info: info('INFO_CAMPAIGN_CREATED'),
        status: 200,
        direct_links: ['https://r/1', 'https://r/2'],
        campaign: { ...wireCampaign, delivery_type: 'DIRECT_LINK', contacts: null, subject: null },
      }),
    );
    server.on(
      'POST /embedded',
      json(200, {
        campaign: { uuid: 'e-uuid', id: 'emb-1', brand_code: 'AMAZONUS', price_in_cents: 1000, fees: null },
        gift_link: 'https://r/e',
        info: info('INFO_CAMPAIGN_CREATED'),
      }),
    );
    const links = await c.client.createDirectLinks({ id: 'order-1', priceInCents: 2500, brandCodes: ['AMAZONUS'], linkCount: 2 });
    expect(links).toMatchObject({ directLinks: ['https://r/1', 'https://r/2'], recovered: false, funding: 'FUNDED' });
    expect(links.campaign.contacts).toBeNull();
    const embedded = await c.client.createEmbeddedReward({ id: 'emb-1', brandCode: 'AMAZONUS', priceInCents: 1000 });
    expect(embedded).toEqual({
      campaign: { id: 'emb-1', uuid: 'e-uuid', brandCode: 'AMAZONUS', priceInCents: 1000, fees: null },
      giftLink: 'https://r/e',
      recovered: false,
    });
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([
      { id: 'order-1', price_in_cents: 2500, brand_codes: ['AMAZONUS'], link_count: 2 },
      { id: 'emb-1', brand_code: 'AMAZONUS', price_in_cents: 1000 },
    ]);
  });

  it('encodes path parameters, and refuses those no encoding makes safe before sending anything', async ({ quirks: server, quirksClient: c }) => {
    server.on('GET /campaign/a%3Fb%20c%23', json(200, { campaign: wireCampaign }));
    expect(await c.client.getCampaign('a?b c#')).not.toBeNull();
    const sent = server.requests.length;
    for (const bad of ['a/b', '..', '\uD800'])
      await expect((async () => c.client.getCampaign(bad))()).rejects.toMatchObject({ name: 'BadPathSegment' });
    expect(server.requests.length).toBe(sent);
  });

  it('reports one event per call with the route pattern', async ({ quirks: server, quirksClient: c }) => {
    server.on('GET /gifts/g-1', json(200, { gift: wireGift({}) }));
    await c.client.getGift('g-1');
    expect(c.events).toEqual([{ route: 'GET /gifts/:uuid', status: 200, attempts: 1, durationMs: expect.any(Number), outcome: 'ok' }]);
    expect(c.logs).toEqual([
      { level: 'debug', obj: { route: 'GET /gifts/:uuid', attempt: 1, status: 200, durationMs: expect.any(Number) }, msg: 'upstream attempt' },
    ]);
  });
});
