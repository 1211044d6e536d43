// The client against the real in-process sandbox: every method's happy path, each error class the sandbox can
// produce, exactly-once creation under injected faults, 429 storms, and the bulkhead measured by the sandbox.
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect } from 'vitest';
import type { UpstreamClientOptions } from '../../src/upstream/client.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import type { TestSandbox } from '../support/sandbox.js';
import { it, test } from '../support/test.js';
import { captureClient, expectTokenAbsent, failure, type Captured } from './helpers.js';

let sbx: TestSandbox;
let clients: Captured[];
let thrown: unknown[];

// The file's sandbox fixture, kept in `sbx` for the helpers below.
test.beforeEach(async ({ sandbox }) => {
  sbx = sandbox;
  await sbx.control.reset();
  clients = [];
  thrown = [];
});

afterEach(async () => {
  for (const c of clients) {
    expectTokenAbsent([...thrown, ...c.events, ...c.logs], sbx.sandbox.token);
    await c.client.close();
  }
});

function client(opts: Partial<UpstreamClientOptions> = {}): Captured {
  const c = captureClient({ baseUrl: sbx.sandbox.baseUrl, token: sbx.sandbox.token, ...opts });
  clients.push(c);
  return c;
}

async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  const err = await failure(promise);
  thrown.push(err);
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

const emailOrder = (id: string, over: object = {}) => ({
  id,
  priceInCents: 1000,
  brandCodes: ['sbxcoffeeus'],
  contacts: [{ email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' }, { email: 'bob@example.com' }],
  subject: 'Thank you',
  message: 'A small thank-you.',
  ...over,
});

describe('happy paths', () => {
  it('ping', async () => {
    const { client: api } = client();
    expect(await api.ping()).toEqual({ username: 'owner@sandbox.invalid', displayName: 'Sandbox Owner' });
  });

  it('email order: create, read by id and uuid, list its gifts, read, resend and cancel one', async () => {
    const { client: api, events } = client();
    const created = await api.createCampaign(emailOrder('email-1'));
    expect(created).toMatchObject({ funding: 'FUNDED', recovered: false, directLinks: null, info: { code: 'INFO_CAMPAIGN_CREATED' } });
    expect(created.campaign).toMatchObject({
      id: 'email-1',
      status: 'API_CREATING',
      deliveryType: 'SERVICE_EMAIL',
      priceInCents: 1000,
      brandCodes: ['sbxcoffeeus'],
      contactsSuccessCount: 2,
      contactsFailureCount: 0,
    });
    expect(created.campaign.contacts?.[0]).toEqual({
      email: 'ann@example.com',
      firstName: 'Ann',
      lastName: 'Lee',
      message: 'New contact',
      addedSuccessfully: true,
    });
    expect(created.campaign.fees?.costEntries[0]).toMatchObject({ feeType: 'PREFUND_GIFT_COST' });

    const byId = await api.getCampaign('email-1');
    expect(byId?.status).toBe('CAMPAIGN_CREATED');
    expect((await api.getCampaign(created.campaign.uuid))?.id).toBe('email-1');

    const gifts = await api.listGifts({ campaignId: 'email-1', sort: 'recipient_email', order: 'asc' });
    expect(gifts).toMatchObject({ numberOfResults: 2, totalCount: 2, limit: 20, offset: 0 });
    const gift = gifts.items[0]!;
    expect(gift).toMatchObject({
      campaignId: 'email-1',
      status: 'SENT_AND_REDEEMABLE',
      deliveryStatus: 'DELIVERED',
      recipientEmail: 'ann@example.com',
      brandCode: 'sbxcoffeeus',
      redeliveryCount: 0,
    });
    expect(gift.createdDate).toBeInstanceOf(Date);
    expect(Math.abs(gift.createdDate!.getTime() - Date.now())).toBeLessThan(60 * 60 * 1000); // the right zone, not off by hours

    expect(await api.getGift(gift.uuid)).toEqual(gift);
    expect((await api.resendGift(gift.uuid)).redeliveryCount).toBe(1);
    const cancelled = await api.cancelGift(gift.uuid);
    expect(cancelled.status).toBe('GIVER_CANCELLED');
    const byStatus = await api.listGifts({ campaignUuid: created.campaign.uuid, status: 'GIVER_CANCELLED' });
    expect(byStatus.items.map((g) => g.uuid)).toEqual([gift.uuid]);
    expect(events.every((e) => e.outcome === 'ok' && e.attempts === 1)).toBe(true);
  });

  it('gift date filters go out as Pacific wall time and select correctly', async () => {
    const { client: api } = client();
    await api.createCampaign(emailOrder('dated-1'));
    const hour = 60 * 60 * 1000;
    const now = Date.now();
    const inWindow = await api.listGifts({ createdDateGreaterThan: new Date(now - hour), createdDateLessThan: new Date(now + hour) });
    expect(inWindow.totalCount).toBe(2);
    const later = await api.listGifts({ createdDateGreaterThan: new Date(now + hour) });
    expect(later.totalCount).toBe(0);
  });

  it('an order beyond the balance is accepted and waits for funds', async () => {
    const { client: api } = client();
    const created = await api.createCampaign(
      emailOrder('big-1', {
        brandCodes: ['sbxprepaidus'],
        priceInCents: 100_000,
        contacts: Array.from({ length: 11 }, (_, i) => ({ email: `p${i}@example.com` })),
      }),
    );
    expect(created.funding).toBe('AWAITING_FUNDS');
    expect(created.info.code).toBe('INFO_CAMPAIGN_CREATED_FUNDS_REQUIRED');
  });

  it('short links: created, then read once generated', async () => {
    const { client: api } = client();
    const created = await api.createCampaign({
      id: 'short-1',
      priceInCents: 1000,
      deliveryType: 'SHORTLINK',
      brandCodes: ['sbxcoffeeus'],
      linkCount: 3,
    });
    expect(created.campaign.deliveryType).toBe('SHORTLINK');
    const page = await api.getLinks('short-1');
    expect(page).toMatchObject({ ready: true, kind: 'SHORTLINK', totalCount: 3, limit: 50, offset: 0 });
    expect(page?.links.map((l) => l.number)).toEqual([1, 2, 3]);
    const gifts = await api.listGifts({ campaignId: 'short-1' });
    expect(gifts.items.map((g) => g.shortlink).sort()).toEqual(page?.links.map((l) => l.url).sort());
  });

  it('direct links: created with their URLs, paged through GET /links', async () => {
    const { client: api } = client();
    const created = await api.createDirectLinks({ id: 'dl-1', priceInCents: 1000, brandCodes: ['sbxcoffeeus'], linkCount: 3 });
    expect(created).toMatchObject({ funding: 'FUNDED', recovered: false });
    expect(created.campaign).toMatchObject({ deliveryType: 'DIRECT_LINK', contacts: null, subject: null, linkCount: 3 });
    expect(created.directLinks).toHaveLength(3);
    const page = await api.getLinks('dl-1', { limit: 2, offset: 1 });
    expect(page).toMatchObject({ ready: true, kind: 'DIRECT_LINK', limit: 2, offset: 1, totalCount: 3 });
    expect(page?.links.map((l) => l.url)).toEqual(created.directLinks?.slice(1));
  });

  it('embedded reward', async () => {
    const { client: api } = client();
    const reward = await api.createEmbeddedReward({ id: 'emb-1', brandCode: 'sbxcoffeeus', priceInCents: 1000 });
    expect(reward).toMatchObject({ recovered: false, campaign: { id: 'emb-1', brandCode: 'sbxcoffeeus', priceInCents: 1000 } });
    expect(reward.giftLink).toMatch(/^https:\/\//);
    expect(reward.campaign.fees?.costEntries.map((e) => e.feeType)).toContain('UPFRONT_PER_GIFT_FEE');
  });

  it('brands, one brand of each price kind, regions', async () => {
    const { client: api } = client();
    const usd = await api.listBrands({ regionId: 2, currency: 'USD', limit: 3 });
    expect(usd).toMatchObject({ limit: 3, offset: 0, numberOfResults: 3 });
    expect(usd.totalCount).toBeGreaterThan(3);
    expect(usd.items[0]).toMatchObject({ brandCode: expect.any(String), imageUrl: expect.stringMatching(/^https:/), disclaimer: expect.any(String) });
    const embeddable = await api.listBrands({ embeddable: true, minPriceInCents: 400, maxPriceInCents: 600, search: 'coffee' });
    expect(embeddable.items.map((b) => b.brandCode).sort()).toEqual(['sbxcoffeeca', 'sbxcoffeeus']);
    expect(await api.getBrand('sbxcoffeeus')).toMatchObject({
      variablePrice: false,
      allowedPricesInCents: [500, 1000, 2500],
      currency: 'USD',
      regionIds: [2],
      embeddable: true,
    });
    expect(await api.getBrand('sbxbooksus')).toMatchObject({
      variablePrice: true,
      minPriceInCents: 500,
      maxPriceInCents: 50000,
      allowedPricesInCents: null,
    });
    expect(await api.getBrand('sbxcinemaus')).toMatchObject({ expiryPeriod: '12 months' });
    expect((await api.listRegions()).map((r) => [r.id, r.name])).toEqual([
      [1, 'Canada'],
      [2, 'USA'],
      [3, 'Global'],
      [4, 'Australia'],
    ]);
  });

  it('funds: read and top up', async () => {
    const { client: api } = client();
    const before = await api.getFunds();
    expect(before.balances.map((b) => b.currency)).toEqual(['AUD', 'CAD', 'USD']);
    const after = await api.addFunds({ id: 'topup-1', currency: 'CAD', amountInCents: 30_000 });
    const cad = (f: typeof before) => f.balances.find((b) => b.currency === 'CAD')!.availableInCents;
    expect(cad(after)).toBe(cad(before) + 30_000);
  });
});

describe('error classes', () => {
  it('401 from a wrong token, with neither token anywhere in the error', async () => {
    const wrong = 'wrong-token-0123456789';
    const { client: api, events, logs } = client({ token: wrong });
    const err = await upstreamFailure(api.ping());
    expect(err).toMatchObject({ kind: 'http', status: 401, code: 'ERROR_UNAUTHORIZED', retryable: false, attempts: 1 });
    expectTokenAbsent([err, ...events, ...logs], wrong);
  });

  it('402 card declined', async () => {
    const { client: api } = client();
    const err = await upstreamFailure(api.addFunds({ id: 'topup-2', currency: 'USD', amountInCents: 40_200 }));
    expect(err).toMatchObject({ status: 402, code: 'ERROR_FUNDS_CARD_ERROR', retryable: false });
  });

  it('400 invalid top-up amount', async () => {
    const { client: api } = client();
    const err = await upstreamFailure(api.addFunds({ id: 'topup-3', currency: 'USD', amountInCents: 10 }));
    expect(err).toMatchObject({ status: 400, code: 'ERROR_FUNDS_INVALID_FUND_AMOUNT', attempts: 1 });
  });

  it('404 lookups are null; an unknown brand (422) is null', async () => {
    const { client: api } = client();
    expect(await api.getCampaign('no-such-order')).toBeNull();
    expect(await api.getGift('no-such-gift')).toBeNull();
    expect(await api.getLinks('no-such-order')).toBeNull();
    expect(await api.getBrand('nosuchbrand')).toBeNull();
  });

  it('422 with the upstream code and message', async () => {
    const { client: api } = client();
    const err = await upstreamFailure(api.createCampaign(emailOrder('bad-brand', { brandCodes: ['sbxcoffeeus'], priceInCents: 777 })));
    expect(err).toMatchObject({ status: 422, code: 'ERROR_CAMPAIGN_INVALID_BRAND', retryable: false, attempts: 1 });
    expect(err.upstreamMessage).toContain('777');
    const noContacts = await upstreamFailure(api.createCampaign(emailOrder('no-contacts', { contacts: [] })));
    expect(noContacts.code).toBe('ERROR_CAMPAIGN_NO_CONTACTS');
  });

  it('same id, different body: ERROR_ID_CONFLICT', async () => {
    const { client: api } = client();
    await api.createCampaign(emailOrder('dup-1'));
    const err = await upstreamFailure(api.createCampaign(emailOrder('dup-1', { priceInCents: 2500 })));
    expect(err).toMatchObject({ status: 422, code: 'ERROR_ID_CONFLICT', attempts: 1 });
  });

  it('resend of a cancelled reward: 422 invalid state', async () => {
    const { client: api } = client();
    await api.createCampaign(emailOrder('state-1'));
    const [gift] = (await api.listGifts({ campaignId: 'state-1' })).items;
    await api.cancelGift(gift!.uuid);
    expect((await api.cancelGift(gift!.uuid)).status).toBe('GIVER_CANCELLED');
    const err = await upstreamFailure(api.resendGift(gift!.uuid));
    expect(err).toMatchObject({ status: 422, code: 'ERROR_CAMPAIGN_INVALID_STATE' });
  });

  it('HTML 5xx pages, retried for GETs until they pass', async () => {
    const { client: api, events } = client();
    await sbx.control.fault({ route: 'GET /regions', status: 502, rate: 1, count: 2 });
    expect(await api.listRegions()).toHaveLength(4);
    expect(events[0]).toMatchObject({ attempts: 3, status: 200, outcome: 'ok' });
    await sbx.control.fault({ route: 'GET /regions', status: 503, rate: 1 });
    const err = await upstreamFailure(api.listRegions());
    expect(err).toMatchObject({ kind: 'http', status: 503, code: null, retryable: true, attempts: 4 });
  });

  it('connection resets are network errors', async () => {
    const { client: api } = client();
    await sbx.control.fault({ route: 'GET /funds', reset: true, rate: 1 });
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'network', status: 0, attempts: 4 });
    expect((await sbx.control.stats()).requests['GET /funds']).toBe(4);
  });

  it('a slow answer is a timeout', async () => {
    const { client: api } = client({ timeoutMs: 50, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    await sbx.control.fault({ route: 'GET /ping', latency_ms: 2_000, rate: 1 });
    const err = await upstreamFailure(api.ping());
    expect(err).toMatchObject({ kind: 'timeout', attempts: 2 });
  });

  it('an abort is its own kind and stops retrying', async () => {
    const { client: api } = client();
    await sbx.control.fault({ route: 'GET /ping', latency_ms: 2_000, rate: 1 });
    const controller = new AbortController();
    const pending = api.ping({ signal: controller.signal });
    while (((await sbx.control.stats()).requests['GET /ping'] ?? 0) < 1) await new Promise((r) => setImmediate(r));
    controller.abort();
    const err = await upstreamFailure(pending);
    expect(err).toMatchObject({ kind: 'aborted', attempts: 1, retryable: false });
  });
});

describe('exactly once and rate limits', () => {
  it('50 orders under 30% resets and 503s, before and after processing: all succeed, each created once', async () => {
    // Four rules at 8.5% each: about 16% fail before processing and 16% of the rest after, 30% in all.
    for (const after of [false, true]) {
      await sbx.control.fault({ route: 'POST /campaign', reset: true, rate: 0.085, after });
      await sbx.control.fault({ route: 'POST /campaign', status: 503, rate: 0.085, after });
    }
    // Eight attempts make "every attempt failed before processing" (about 0.16^8 per order) practically
    // impossible; when every attempt fails but one got through, the lookup by id recovers the order.
    const { client: api, events } = client({ retry: { maxAttempts: 8, baseDelayMs: 1, maxDelayMs: 5, budgetMs: 10_000 } });
    const ids = Array.from({ length: 50 }, (_, i) => `once-${i}`);
    const results = await Promise.all(ids.map((id) => api.createCampaign(emailOrder(id))));
    expect(results.map((r) => r.campaign.id)).toEqual(ids);
    const stats = await sbx.control.stats();
    expect(stats.creates).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    // The faults did strike: more POSTs than orders.
    expect(stats.requests['POST /campaign']).toBeGreaterThan(50);
    expect(events.every((e) => e.outcome === 'ok')).toBe(true);
  });

  it('a create whose every answer is lost after processing is recovered by its id', async () => {
    const { client: api, events } = client();
    await sbx.control.fault({ route: 'POST /campaign', status: 503, rate: 1, after: true });
    const created = await api.createCampaign(emailOrder('lost-1'));
    expect(created).toMatchObject({ recovered: true, funding: 'FUNDED', campaign: { id: 'lost-1' } });
    const stats = await sbx.control.stats();
    expect(stats.creates).toEqual({ 'lost-1': 1 });
    expect(stats.requests['POST /campaign']).toBe(4);
    expect(stats.requests['GET /campaign/:id']).toBe(1);
    expect(events).toEqual([expect.objectContaining({ route: 'POST /campaign', status: 503, attempts: 4, outcome: 'ok', recovered: true })]);
  });

  it('direct links recovered after a lost answer carry all their URLs', async () => {
    const { client: api } = client();
    await sbx.control.fault({ route: 'POST /direct_links', reset: true, rate: 1, after: true });
    const created = await api.createDirectLinks({ id: 'lost-dl', priceInCents: 1000, brandCodes: ['sbxcoffeeus'], linkCount: 55 });
    expect(created.recovered).toBe(true);
    expect(created.directLinks).toHaveLength(55);
    expect(new Set(created.directLinks).size).toBe(55);
    expect((await sbx.control.stats()).requests['GET /links/:id']).toBe(2);
  });

  it('an embedded reward whose answers are lost is recovered with its gift link', async () => {
    const { client: api, events } = client();
    await sbx.control.fault({ route: 'POST /embedded', status: 500, rate: 1, after: true, count: 4 });
    const reward = await api.createEmbeddedReward({ id: 'lost-emb', brandCode: 'sbxcoffeeus', priceInCents: 1000 });
    expect(reward).toMatchObject({ recovered: true, campaign: { id: 'lost-emb', brandCode: 'sbxcoffeeus', priceInCents: 1000 } });
    expect(events[0]).toMatchObject({ route: 'POST /embedded', status: 500, attempts: 4, outcome: 'ok', recovered: true });
    // The link found through GET /gifts?campaign_id= is the one the lost answer carried: a replay shows it.
    const replay = await api.createEmbeddedReward({ id: 'lost-emb', brandCode: 'sbxcoffeeus', priceInCents: 1000 });
    expect(replay).toMatchObject({ recovered: false, giftLink: reward.giftLink, campaign: { uuid: reward.campaign.uuid } });
    const stats = await sbx.control.stats();
    expect(stats.creates).toEqual({ 'lost-emb': 1 });
    expect(stats.requests['GET /gifts']).toBe(1);
  });

  it('a top-up whose answers are lost says the outcome is unknown; the retry with the same id adds nothing twice', async () => {
    const { client: api } = client();
    const before = (await api.getFunds()).balances.find((b) => b.currency === 'USD')!.availableInCents;
    await sbx.control.fault({ route: 'POST /funds', reset: true, rate: 1, after: true, count: 4 });
    const err = await upstreamFailure(api.addFunds({ id: 'topup-lost', currency: 'USD', amountInCents: 50_000 }));
    expect(err).toMatchObject({ kind: 'network', retryable: true, outcomeUnknown: true });
    const after = await api.addFunds({ id: 'topup-lost', currency: 'USD', amountInCents: 50_000 });
    expect(after.balances.find((b) => b.currency === 'USD')!.availableInCents).toBe(before + 50_000);
  });

  it('resend is never retried: one PUT under a 503', async () => {
    const { client: api } = client();
    await api.createCampaign(emailOrder('resend-1'));
    const [gift] = (await api.listGifts({ campaignId: 'resend-1' })).items;
    await sbx.control.fault({ route: 'PUT /gifts/:uuid', status: 503, rate: 1 });
    const err = await upstreamFailure(api.resendGift(gift!.uuid));
    expect(err).toMatchObject({ status: 503, attempts: 1, retryable: false });
    expect((await sbx.control.stats()).requests['PUT /gifts/:uuid']).toBe(1);
  });

  it('cancel is retried through a reset', async () => {
    const { client: api } = client();
    await api.createCampaign(emailOrder('cancel-1'));
    const [gift] = (await api.listGifts({ campaignId: 'cancel-1' })).items;
    await sbx.control.fault({ route: 'DELETE /gifts/:uuid', reset: true, rate: 1, after: true, count: 1 });
    expect((await api.cancelGift(gift!.uuid)).status).toBe('GIVER_CANCELLED');
    expect((await sbx.control.stats()).requests['DELETE /gifts/:uuid']).toBe(2);
  });

  it('a short 429 storm ends in success after backoff', async () => {
    // Without the adaptive limit, which would pace the four attempts one a second (shield.test.ts has its own cases).
    const { client: api, events } = client({ adaptiveLimit: false });
    await sbx.control.fault({ route: 'POST /campaign', status: 429, rate: 1, count: 3 });
    const created = await api.createCampaign(emailOrder('storm-1'));
    expect(created.recovered).toBe(false);
    expect(events[0]).toMatchObject({ attempts: 4, status: 200, outcome: 'ok' });
    expect((await sbx.control.stats()).creates).toEqual({ 'storm-1': 1 });
  });

  it('a 429 storm that outlasts the budget ends in a clear rate-limit error, not looked up', async () => {
    // The budget is what ends the call, so its size is wall-clock margin: the last attempt may start with only a
    // tenth of it left (minAttemptMs), which is then its timeout, so with 300 ms a 30 ms stall of this process (a
    // busy shared core under the full suite) while that 429 was on its way could turn it into a timeout (an
    // unclear outcome, looked up), and a first attempt slower than 270 ms left no retry at all. With 3 s the
    // stall must last 300 ms at that moment; the 429s are answered at once, so the call still makes many attempts.
    const { client: api, events } = client({ retry: { maxAttempts: 1_000, baseDelayMs: 5, maxDelayMs: 20, budgetMs: 3_000 } });
    await sbx.control.fault({ route: 'POST /campaign', status: 429, rate: 1 });
    const err = await upstreamFailure(api.createCampaign(emailOrder('storm-2')));
    expect(err).toMatchObject({ kind: 'http', status: 429, code: 'ERROR_TOO_MANY_REQUESTS', retryable: true });
    expect(err.attempts).toBeGreaterThan(1);
    expect(err.attempts).toBeLessThan(1_000);
    const stats = await sbx.control.stats();
    expect(stats.requests['POST /campaign']).toBe(err.attempts);
    expect(stats.requests['GET /campaign/:id']).toBeUndefined();
    expect(stats.creates).toEqual({});
    expect(events).toEqual([expect.objectContaining({ status: 429, attempts: err.attempts, outcome: 'error' })]);
  });

  it('SIMULATE-RATELIMIT: the sandbox answers 429 to the header, and the client turns it into a rate-limit error', async () => {
    const direct = await sbx.api('GET', '/ping', undefined, { 'SIMULATE-RATELIMIT': 'true' });
    expect(direct.status).toBe(429);
    expect(direct.body.error.code).toBe('ERROR_TOO_MANY_REQUESTS');
    // The client has no knob for a test-environment header; a pass-through proxy adds it to every request.
    const proxy = await startHeaderProxy(sbx.sandbox.origin, { 'simulate-ratelimit': 'true' });
    try {
      // Without the adaptive limit, which would pace the three attempts one a second.
      const { client: api } = client({
        baseUrl: `${proxy.origin}/papi/v1`,
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
        adaptiveLimit: false,
      });
      const err = await upstreamFailure(api.getFunds());
      expect(err).toMatchObject({ status: 429, code: 'ERROR_TOO_MANY_REQUESTS', attempts: 3, retryable: true });
      expect((await sbx.control.stats()).requests['GET /funds']).toBe(3);
    } finally {
      await proxy.close();
    }
  });
});

describe('bulkhead', () => {
  it('never lets more than maxInFlight requests reach the upstream', async () => {
    // One lane (no operation scope) may take every slot here: this is about the total.
    const { client: api } = client({ maxInFlight: 3, laneShare: 1, queueTimeoutMs: 10_000 });
    await sbx.control.fault({ route: 'GET /regions', latency_ms: 30, rate: 1 });
    await Promise.all(Array.from({ length: 15 }, () => api.listRegions()));
    const stats = await sbx.control.stats();
    expect(stats.requests['GET /regions']).toBe(15);
    expect(stats.inFlightMax).toBe(3);
  });

  it('fails a call as overloaded when no slot frees within the queue wait', async () => {
    const { client: api } = client({ maxInFlight: 1, queueTimeoutMs: 10 });
    await sbx.control.fault({ route: 'GET /regions', latency_ms: 1_000, rate: 1 });
    const controller = new AbortController();
    const slow = api.listRegions({ signal: controller.signal });
    while (((await sbx.control.stats()).requests['GET /regions'] ?? 0) < 1) await new Promise((r) => setImmediate(r));
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'overloaded', attempts: 1 });
    expect((await sbx.control.stats()).requests['GET /funds']).toBeUndefined();
    controller.abort();
    thrown.push(await failure(slow));
  });
});

/** Forwards every request to `target`, adding `headers`: stands in for a test-environment request option. */
async function startHeaderProxy(target: string, headers: Record<string, string>): Promise<{ origin: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, ...headers } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
