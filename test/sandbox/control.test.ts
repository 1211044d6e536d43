// The control API: stats, reset, clock, and injected faults (status, reset, latency, count, route, after).
import { describe, expect, vi } from 'vitest';
import { it, test } from '../support/test.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { balance, campaign, create, emailOrder, expectError, rawControl } from './helpers.js';

// Latency is shown by order, not by the clock: a request held for a minute is still unanswered when others
// that came after it have been answered, and the sandbox's own in-flight count says when requests arrived.
const HELD_MS = 60_000;

/** Waits (polling the control API, which latency never delays) until `n` API requests were in flight at once. */
async function untilInFlight(s: TestSandbox, n: number): Promise<void> {
  await vi.waitFor(async () => expect((await s.control.stats()).inFlightMax).toBe(n), { timeout: 10_000, interval: 5 });
}

/** A request's fate, readable without awaiting it. */
function track(request: Promise<unknown>): { state: 'pending' | 'answered' | 'failed' } {
  const t: { state: 'pending' | 'answered' | 'failed' } = { state: 'pending' };
  request.then(
    () => (t.state = 'answered'),
    () => (t.state = 'failed'),
  );
  return t;
}

test.beforeEach(({ sandbox }) => sandbox.control.reset());

describe('stats', () => {
  it('counts requests per route pattern, not control calls, and creates per caller id', async ({ sandbox }) => {
    await sandbox.api('GET', '/ping');
    await sandbox.api('GET', '/gifts/abc');
    await sandbox.api('GET', '/gifts/def');
    await sandbox.api('GET', '/gifts?limit=5');
    await sandbox.api('GET', '/nothing');
    await create(sandbox, '/campaign', emailOrder({ id: 'o1' }));
    await sandbox.api('POST', '/campaign', emailOrder({ id: 'o1' }));
    await sandbox.api('POST', '/funds', { id: 'f1', currencyisocode: 'USD', fund_amount_in_cents: 30000 });
    await sandbox.api('GET', '/ping', undefined, { authorization: 'Bearer wrong' });
    await sandbox.control.advanceClock(0);
    const stats = await sandbox.control.stats();
    expect(stats.requests).toEqual({ 'GET /ping': 2, 'GET /gifts/:uuid': 2, 'GET /gifts': 1, 'POST /campaign': 2, 'POST /funds': 1 });
    expect(stats.creates).toEqual({ o1: 1, f1: 1 });
    expect(stats.inFlightMax).toBe(1);
  });

  it('reports the most requests served at once, latency included', async () => {
    const slow = await startTestSandbox({ latencyMs: HELD_MS });
    try {
      const pings = Array.from({ length: 5 }, () => track(slow.api('GET', '/ping')));
      await untilInFlight(slow, 5);
      expect(pings.map((p) => p.state)).toEqual(Array(5).fill('pending'));
    } finally {
      await slow.close();
    }
  });
});

describe('reset', () => {
  it('empties orders and stats, restores balances and faults, and puts the clock back', async ({ sandbox }) => {
    await create(sandbox, '/campaign', emailOrder({ id: 'gone' }));
    await sandbox.control.advanceClock(86_400_000);
    await sandbox.control.fault({ status: 503, rate: 1 });
    await sandbox.control.reset();
    expectError(await sandbox.api('GET', '/campaign/gone'), 404, 'ERROR_CAMPAIGN_NOT_FOUND');
    expect(await balance(sandbox)).toEqual({ available: 1_000_000, pending: 0, reserved: 0 });
    const { offset_ms, now } = await sandbox.control.advanceClock(0);
    expect(offset_ms).toBe(0);
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(5_000);
    const stats = await sandbox.control.stats();
    expect(stats).toEqual({
      requests: { 'GET /campaign/:id': 1, 'GET /funds': 1 },
      creates: {},
      requestIds: {},
      inFlightMax: 1,
      perSecond: expect.any(Object),
      throttledPerSecond: {},
    });
    // The two requests since the reset, by the second they arrived in.
    expect(Object.values(stats.perSecond).reduce((a, b) => a + b, 0)).toBe(2);
    // The id is free again.
    await create(sandbox, '/campaign', emailOrder({ id: 'gone' }));
  });
});

describe('clock', () => {
  it('moves forward and answers the new time in ISO and Pacific form', async ({ sandbox }) => {
    const before = await sandbox.control.advanceClock(0);
    const after = await sandbox.control.advanceClock(3_600_000);
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(3_600_000);
    expect(after.now_pacific).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(after.offset_ms).toBe(3_600_000);
  });

  it('stamps records with the sandbox clock', async ({ sandbox }) => {
    await sandbox.control.advanceClock(2 * 86_400_000);
    const res = await create(sandbox, '/campaign', emailOrder());
    const shown = res.campaign.created_date;
    const { now_pacific } = await sandbox.control.advanceClock(0);
    expect(shown.slice(0, 10)).toBe(now_pacific.slice(0, 10));
  });

  it('refuses going backwards or a missing value', async ({ sandbox }) => {
    expect((await rawControl(sandbox, 'POST', '/clock', '{"advance_ms": -1}')).status).toBe(422);
    expect((await rawControl(sandbox, 'POST', '/clock', '{}')).status).toBe(422);
    expect((await rawControl(sandbox, 'POST', '/clock')).status).toBe(400);
  });
});

describe('faults', () => {
  it('answers an injected 5xx with an HTML page, counting the request', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1 });
    const res = await sandbox.api('GET', '/funds');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.body).toContain('<title>503 Service Temporarily Unavailable</title>');
    // Only that route.
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
    expect((await sandbox.control.stats()).requests['GET /funds']).toBe(1);
  });

  it('answers an injected 429 with the JSON envelope', async ({ sandbox }) => {
    await sandbox.control.fault({ status: 429, rate: 1, count: 1 });
    expectError(await sandbox.api('GET', '/ping'), 429, 'ERROR_TOO_MANY_REQUESTS');
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
  });

  it('limits a rule to `count` firings', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'GET /ping', status: 500, rate: 1, count: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await sandbox.api('GET', '/ping')).status);
    expect(statuses).toEqual([500, 500, 200, 200]);
    expect((await sandbox.control.stats()).requests['GET /ping']).toBe(4);
  });

  it('drops the connection without an answer on reset, before the order is created', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'POST /campaign', reset: true, rate: 1, count: 1 });
    await expect(sandbox.api('POST', '/campaign', emailOrder({ id: 'dropped' }))).rejects.toThrow();
    expect((await sandbox.control.stats()).creates).toEqual({});
    expectError(await sandbox.api('GET', '/campaign/dropped'), 404, 'ERROR_CAMPAIGN_NOT_FOUND');
  });

  it('with after: true, creates the order and then drops the connection (the client cannot know)', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'POST /campaign', reset: true, after: true, rate: 1, count: 1 });
    const body = emailOrder({ id: 'ambiguous' });
    await expect(sandbox.api('POST', '/campaign', body)).rejects.toThrow();
    expect((await campaign(sandbox, 'ambiguous')).status).toBe('CAMPAIGN_CREATED');
    // The documented recovery: the same POST again answers the original order and creates nothing.
    const retry = await sandbox.api('POST', '/campaign', body);
    expect(retry.status).toBe(200);
    expect((await sandbox.control.stats()).creates).toEqual({ ambiguous: 1 });
    expect((await balance(sandbox)).reserved).toBe(1000);
  });

  it('with after: true and a status, creates the order and answers the failure', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'POST /direct_links', status: 502, after: true, rate: 1, count: 1 });
    const res = await sandbox.api('POST', '/direct_links', { id: 'bad-gateway', price_in_cents: 1000, brand_codes: ['sbxcoffeeus'], link_count: 1 });
    expect(res.status).toBe(502);
    expect(res.body).toContain('502 Bad Gateway');
    expect((await sandbox.control.stats()).creates).toEqual({ 'bad-gateway': 1 });
  });

  it('with garble: true, answers 200 with a body cut short, after processing when after: true', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'POST /direct_links', garble: true, after: true, rate: 1, count: 1 });
    const body = { id: 'garbled', price_in_cents: 1000, brand_codes: ['sbxcoffeeus'], link_count: 1 };
    const res = await sandbox.api('POST', '/direct_links', body);
    expect(res.status).toBe(200);
    expect(typeof res.body).toBe('string');
    expect(() => JSON.parse(res.body)).toThrow();
    expect((await sandbox.control.stats()).creates).toEqual({ garbled: 1 });
    // The cut answer is the start of the real one: the replay shows it whole.
    const replay = await sandbox.api('POST', '/direct_links', body);
    expect(JSON.stringify(replay.body).startsWith(res.body)).toBe(true);
  });

  it('with garble: true before processing, answers 200 with a body cut short and changes nothing', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'POST /campaign', garble: true, rate: 1, count: 1 });
    const res = await sandbox.api('POST', '/campaign', emailOrder({ id: 'garbled-before' }));
    expect(res.status).toBe(200);
    expect(() => JSON.parse(res.body)).toThrow();
    expect((await sandbox.control.stats()).creates).toEqual({});
  });

  it('delays answers with latency_ms alone, without failing', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'GET /ping', latency_ms: 1, rate: 1 });
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);

    const s = await startTestSandbox();
    try {
      await s.control.fault({ route: 'GET /ping', latency_ms: HELD_MS, rate: 1 });
      const ping = track(s.api('GET', '/ping'));
      await untilInFlight(s, 1);
      // A route the rule does not name answers at once, while the ping, sent first, is still held.
      expect((await s.api('GET', '/regions')).status).toBe(200);
      expect((await s.control.stats()).inFlightMax).toBe(2);
      expect(ping.state).toBe('pending');
    } finally {
      await s.close();
    }
  });

  it('applies the starting latency option to every reward API answer', async () => {
    const slow = await startTestSandbox({ latencyMs: HELD_MS });
    try {
      const held = [track(slow.api('GET', '/ping')), track(slow.api('GET', '/regions'))];
      await untilInFlight(slow, 2);
      expect(held.map((r) => r.state)).toEqual(['pending', 'pending']);
    } finally {
      await slow.close();
    }
  });

  it('never fires a rule with rate 0, and clears rules on DELETE', async ({ sandbox }) => {
    await sandbox.control.fault({ status: 500, rate: 0 });
    for (let i = 0; i < 5; i++) expect((await sandbox.api('GET', '/ping')).status).toBe(200);
    await sandbox.control.fault({ status: 500, rate: 1 });
    expect((await sandbox.api('GET', '/ping')).status).toBe(500);
    await sandbox.control.clearFaults();
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
  });

  it('fires a fractional rate on roughly that share of requests', async ({ sandbox }) => {
    await sandbox.control.fault({ route: 'GET /ping', status: 503, rate: 0.5 });
    const statuses = await Promise.all(Array.from({ length: 100 }, () => sandbox.api('GET', '/ping').then((r) => r.status)));
    const failed = statuses.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThan(20);
    expect(failed).toBeLessThan(80);
    expect(statuses.filter((s) => s !== 503).every((s) => s === 200)).toBe(true);
  });

  it('refuses malformed rules with 422', async ({ sandbox }) => {
    for (const rule of [
      { status: 418, rate: 1 },
      { status: 500 },
      { status: 500, rate: 2 },
      { status: 500, reset: true, rate: 1 },
      { status: 500, garble: true, rate: 1 },
      { reset: true, garble: true, rate: 1 },
      { rate: 1 },
      { route: 'GET /no-such-route', status: 500, rate: 1 },
      { route: 'GET /gifts/{uuid}', status: 500, rate: 1 },
    ]) {
      const res = await rawControl(sandbox, 'POST', '/faults', JSON.stringify(rule));
      expect(res.status, JSON.stringify(rule)).toBe(422);
    }
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
  });

  it('keeps answering after a fault that reset a keep-alive connection', async ({ sandbox }) => {
    await sandbox.control.fault({ reset: true, rate: 1, count: 1 });
    await expect(sandbox.api('GET', '/ping')).rejects.toThrow();
    expect((await sandbox.api('GET', '/ping')).status).toBe(200);
  });
});

describe('close', () => {
  it('closes while a request is waiting on latency, and frees the port', async () => {
    // Held for a minute, longer than the test may take: close must not wait for it.
    const s = await startTestSandbox({ latencyMs: HELD_MS });
    const pending = s.api('GET', '/ping').then(
      () => 'answered',
      () => 'failed',
    );
    await untilInFlight(s, 1);
    await s.close();
    expect(await pending).toBe('failed');
    await expect(fetch(`${s.sandbox.origin}/papi/v1/ping`)).rejects.toThrow();
  });
});
