// Every failure class against a scripted server: what kind of UpstreamError comes out, what is retried and
// what is not, budgets and Retry-After, the bulkhead, recovery after a lost create answer, and that the token
// is nowhere in what any of it produced.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect } from 'vitest';
import { it, test } from '../support/test.js';
import { IdConflictError, UpstreamError } from '../../src/upstream/errors.js';
import { captureClient, expectTokenAbsent, failure, TOKEN, type Captured } from './helpers.js';
import { hang, HTML_503, json, raw, reset, type QuirksServer } from './quirks-server.js';

let server: QuirksServer;
let clients: Captured[];
let thrown: unknown[];

function client(opts: Parameters<typeof captureClient>[0] extends infer O ? Omit<O, 'baseUrl'> : never = {}): Captured {
  const c = captureClient({ baseUrl: server.baseUrl, ...opts });
  clients.push(c);
  return c;
}

/** The rejection of `promise`, checked to be an UpstreamError and kept for the token check. */
async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  const err = await failure(promise);
  thrown.push(err);
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

const count = (route: string) => server.requests.filter((r) => `${r.method} ${r.url.split('?')[0]}` === route.replace(' ', ' /papi/v1')).length;

const wireCampaign = { id: 'order-9', uuid: 'c-9', status: 'CAMPAIGN_CREATED', delivery_type: 'SHORTLINK', price_in_cents: 1000, brand_codes: ['B'] };

// The test's quirks fixture (closed after the test), kept in `server` for the helpers above.
test.beforeEach(({ quirks }) => {
  server = quirks;
  clients = [];
  thrown = [];
});

afterEach(async () => {
  for (const c of clients) {
    expectTokenAbsent([...thrown, ...c.events, ...c.logs]);
    await c.client.close();
  }
});

describe('the token check itself', () => {
  it('would catch a leak in a message, a field, a nested object or an inspected cause', () => {
    expect(() => expectTokenAbsent([new Error(`Bearer ${TOKEN}`)])).toThrow();
    expect(() => expectTokenAbsent([{ headers: { authorization: `Bearer ${TOKEN}` } }])).toThrow();
    expect(() => expectTokenAbsent([new Error('x', { cause: { token: TOKEN } })])).toThrow();
  });
});

describe('HTTP errors', () => {
  it('an HTML 503 is retried, then surfaces as http 503 without a code', async () => {
    const { client: api, events } = client();
    server.on('GET /funds', raw(503, 'text/html', HTML_503));
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'http', status: 503, code: null, retryable: true, attempts: 4, route: 'GET /funds' });
    expect(err.message).toBe('GET /funds: the upstream failed (503) (gave up after 4 attempts)');
    expect(count('GET /funds')).toBe(4);
    expect(events).toEqual([{ route: 'GET /funds', status: 503, attempts: 4, durationMs: expect.any(Number), outcome: 'error', errorKind: 'http' }]);
  });

  it('a 401 written as {"status":401,"text":"Unauthorized"} with an HTML type is read, not retried', async () => {
    const { client: api } = client();
    server.on('GET /ping', raw(401, 'text/html; charset=utf-8', '{"status":401,"text":"Unauthorized"}'));
    const err = await upstreamFailure(api.ping());
    expect(err).toMatchObject({
      kind: 'http',
      status: 401,
      code: 'ERROR_UNAUTHORIZED',
      upstreamMessage: 'Unauthorized',
      retryable: false,
      attempts: 1,
    });
    expect(count('GET /ping')).toBe(1);
  });

  it('a 422 error envelope keeps its code and message and is not retried; the token echoed back is redacted', async () => {
    const { client: api } = client();
    server.on(
      'POST /campaign',
      json(422, {
        error: { code: 'ERROR_CAMPAIGN_INVALID_BRAND', name: 'Invalid brand', message: `brand NOPE is not valid for Bearer ${TOKEN}` },
        status: 422,
        campaign: { id: 'x' },
      }),
    );
    const err = await upstreamFailure(
      api.createCampaign({ id: 'o-1', priceInCents: 1000, brandCodes: ['NOPE'], contacts: [{ email: 'a@example.com' }] }),
    );
    expect(err).toMatchObject({ kind: 'http', status: 422, code: 'ERROR_CAMPAIGN_INVALID_BRAND', retryable: false, attempts: 1 });
    expect(err.upstreamMessage).toBe('brand NOPE is not valid for Bearer [redacted]');
    expect(count('POST /campaign')).toBe(1);
    expect(count('GET /campaign/o-1')).toBe(0);
  });

  it('a 402 card error on a top-up is a clear rejection', async () => {
    const { client: api } = client();
    server.on('POST /funds', json(402, { error: { code: 'ERROR_FUNDS_CARD_ERROR', message: 'Card declined' }, status: 402 }));
    const err = await upstreamFailure(api.addFunds({ id: 'f-1', currency: 'USD', amountInCents: 30_000 }));
    expect(err).toMatchObject({ status: 402, code: 'ERROR_FUNDS_CARD_ERROR', retryable: false, attempts: 1 });
  });

  it('ERROR_ID_CONFLICT is not retried; the order under the id is read to name the fields that differ', async () => {
    const { client: api } = client();
    server.on('POST /direct_links', json(422, { error: { code: 'ERROR_ID_CONFLICT', message: 'Id already used' }, status: 422 }));
    server.on('GET /campaign/dup', json(200, { campaign: { ...wireCampaign, id: 'dup', delivery_type: 'DIRECT_LINK', link_count: 3 } }));
    const err = await upstreamFailure(api.createDirectLinks({ id: 'dup', priceInCents: 1000, brandCodes: ['B'], linkCount: 1 }));
    expect(err).toBeInstanceOf(IdConflictError);
    expect(err).toMatchObject({ status: 422, code: 'ERROR_ID_CONFLICT', attempts: 1, conflictingFields: ['linkCount'], outcomeUnknown: false });
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('ERROR_ID_CONFLICT on an id nothing can be read for (a top-up, say) names no fields', async () => {
    const { client: api } = client();
    server.on('POST /campaign', json(422, { error: { code: 'ERROR_ID_CONFLICT', message: 'Id already used' }, status: 422 }));
    server.on('GET /campaign/topup-1', json(404, { error: { code: 'ERROR_CAMPAIGN_NOT_FOUND' }, status: 404 }));
    const err = await upstreamFailure(api.createCampaign({ id: 'topup-1', priceInCents: 1000, brandCodes: ['B'] }));
    expect(err).toMatchObject({ code: 'ERROR_ID_CONFLICT', conflictingFields: [] });
  });

  it('lookups answer null on 404, and getBrand also on 422 ERROR_BRANDS_NO_SUCH_BRAND', async () => {
    const { client: api, events } = client();
    server.on('GET /brands/NOPE', json(422, { error: { code: 'ERROR_BRANDS_NO_SUCH_BRAND' }, status: 422 }));
    server.on('GET /brands/OTHER', json(422, { error: { code: 'ERROR_INVALID_PARAMETERS' }, status: 422 }));
    expect(await api.getCampaign('missing')).toBeNull();
    expect(await api.getGift('missing')).toBeNull();
    expect(await api.getLinks('missing')).toBeNull();
    expect(await api.getBrand('missing')).toBeNull();
    expect(await api.getBrand('NOPE')).toBeNull();
    await upstreamFailure(api.getBrand('OTHER'));
    expect(events.map((e) => [e.route, e.status, e.outcome])).toEqual([
      ['GET /campaign/:id', 404, 'ok'],
      ['GET /gifts/:uuid', 404, 'ok'],
      ['GET /links/:id', 404, 'ok'],
      ['GET /brands/:code', 404, 'ok'],
      ['GET /brands/:code', 422, 'ok'],
      ['GET /brands/:code', 422, 'error'],
    ]);
  });

  it('a 200 that is not the expected shape, or not JSON, is invalid_response and not retried', async () => {
    const { client: api } = client();
    server.on('GET /ping', json(200, { info: { code: 'INFO_CREDENTIALS' }, user: 'x' }), raw(200, 'text/html', '<html>maintenance</html>'));
    const shape = await upstreamFailure(api.ping());
    expect(shape).toMatchObject({ kind: 'invalid_response', status: 200, retryable: false, attempts: 1 });
    expect(shape.message).toContain('username');
    const html = await upstreamFailure(api.ping());
    expect(html).toMatchObject({ kind: 'invalid_response', attempts: 1 });
    expect(html.message).toContain('not JSON');
    expect(count('GET /ping')).toBe(2);
  });
});

describe('retries, 429 and budgets', () => {
  it('a 429 with Retry-After is waited out, then succeeds', async () => {
    const { client: api, events, logs } = client();
    server.on(
      'GET /regions',
      json(429, { error: { code: 'ERROR_TOO_MANY_REQUESTS' }, status: 429 }, { 'retry-after': '1' }),
      json(200, { regions: [{ id: 2, name: 'USA', image_url: 'https://img/us' }] }),
    );
    expect(await api.listRegions()).toEqual([{ id: 2, name: 'USA', imageUrl: 'https://img/us' }]);
    expect(events[0]).toMatchObject({ route: 'GET /regions', status: 200, attempts: 2, outcome: 'ok' });
    // The wait decided for the retry is the Retry-After, although maxDelayMs is 5.
    expect(logs[0]?.obj).toMatchObject({ attempt: 1, status: 429, retryInMs: 1_000 });
  });

  it('a Retry-After longer than the budget ends the call at once with a clear rate-limit error', async () => {
    const { client: api } = client({ retry: { budgetMs: 2_000, baseDelayMs: 1, maxDelayMs: 5 } });
    server.on('GET /gifts', raw(429, 'text/plain', 'Too Many Requests', { 'retry-after': '30' }));
    const err = await upstreamFailure(api.listGifts({}));
    expect(err).toMatchObject({ kind: 'http', status: 429, code: 'ERROR_TOO_MANY_REQUESTS', retryable: true, retryAfterSeconds: 30, attempts: 1 });
  });

  it('a 429 storm without Retry-After ends after maxAttempts', async () => {
    // Without the adaptive limit, which would pace the six attempts one a second (shield.test.ts has its own cases).
    const { client: api } = client({ retry: { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 2 }, adaptiveLimit: false });
    server.on('GET /brands', json(429, { error: { code: 'ERROR_TOO_MANY_REQUESTS', message: 'Slow down' }, status: 429 }));
    const err = await upstreamFailure(api.listBrands({}));
    expect(err).toMatchObject({ status: 429, code: 'ERROR_TOO_MANY_REQUESTS', attempts: 6, retryAfterSeconds: null });
    expect(count('GET /brands')).toBe(6);
  });

  it('the budget cuts an attempt short: no retry loop outlives it', async () => {
    const { client: api, events } = client({ timeoutMs: 60_000, retry: { maxAttempts: 50, budgetMs: 150 } });
    server.on('GET /funds', hang);
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'timeout', attempts: 1, retryable: true });
    expect(events).toHaveLength(1);
  });

  it('a 503 storm with attempts to spare ends when the budget is spent', async () => {
    // The budget is time, so it is wide enough that a loaded machine still fits a second attempt (200 ms did not).
    const { client: api, events } = client({ retry: { maxAttempts: 10_000, baseDelayMs: 2, maxDelayMs: 4, budgetMs: 1_500 } });
    server.on('GET /funds', raw(503, 'text/html', HTML_503));
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'http', status: 503 });
    expect(err.attempts).toBeGreaterThan(1);
    expect(err.attempts).toBeLessThan(10_000);
    expect(count('GET /funds')).toBe(err.attempts);
    expect(events).toEqual([expect.objectContaining({ attempts: err.attempts, outcome: 'error' })]);
  });

  it('a reset connection is a network error, retried for GETs', async () => {
    const { client: api } = client();
    server.on('GET /gifts/g-1', reset);
    const err = await upstreamFailure(api.getGift('g-1'));
    expect(err).toMatchObject({ kind: 'network', status: 0, retryable: true, attempts: 4 });
    expect(err.message).toMatch(/^GET \/gifts\/:uuid: connection to the upstream failed/);
  });

  it('a refused connection is a network error', async () => {
    const { client: api } = client({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
    await server.close(); // closing it again after the test is harmless; the client points at its port
    const err = await upstreamFailure(api.ping());
    expect(err).toMatchObject({ kind: 'network', attempts: 2 });
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('a hanging answer is a timeout, retried, and distinct from network errors', async () => {
    // Long enough for the retry's new connection to reach the server on a loaded machine (50 ms did not, once).
    const { client: api } = client({ timeoutMs: 300, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    server.on('GET /regions', hang);
    const err = await upstreamFailure(api.listRegions());
    expect(err).toMatchObject({ kind: 'timeout', status: 0, retryable: true, attempts: 2 });
    expect(count('GET /regions')).toBe(2);
  });

  it('a body that stops half-way is a timeout too: the deadline covers the body', async () => {
    const { client: api } = client({ timeoutMs: 80, retry: { maxAttempts: 1 } });
    server.on('GET /funds', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"fundsbycurrency":');
    });
    const err = await upstreamFailure(api.getFunds());
    expect(err.kind).toBe('timeout');
  });
});

describe('abort and bulkhead', () => {
  it("the caller's abort ends the call as aborted, with no retry", async () => {
    const { client: api, events } = client();
    server.on('GET /gifts', hang);
    const controller = new AbortController();
    const pending = api.listGifts({}, { signal: controller.signal });
    await server.arrived(1);
    controller.abort();
    const err = await upstreamFailure(pending);
    expect(err).toMatchObject({ kind: 'aborted', retryable: false, attempts: 1 });
    expect(events[0]).toMatchObject({ outcome: 'error', errorKind: 'aborted' });
    expect(server.requests).toHaveLength(1);
  });

  it('an abort while a write is under way leaves its outcome unknown; before sending, it does not', async () => {
    const { client: api } = client();
    server.on('PUT /gifts/g-1', hang);
    const controller = new AbortController();
    const pending = api.resendGift('g-1', { signal: controller.signal });
    await server.arrived(1);
    controller.abort();
    expect(await upstreamFailure(pending)).toMatchObject({ kind: 'aborted', outcomeUnknown: true });
    expect(await upstreamFailure(api.resendGift('g-1', { signal: AbortSignal.abort() }))).toMatchObject({ kind: 'aborted', outcomeUnknown: false });
  });

  it('an abort during the backoff wait ends the call at once', async () => {
    const controller = new AbortController();
    const c = client({
      retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
      logger: { debug: (obj) => ('retryInMs' in obj ? controller.abort() : undefined), warn: () => {} },
    });
    server.on('GET /funds', raw(503, 'text/html', HTML_503, { 'retry-after': '2' }));
    const err = await upstreamFailure(c.client.getFunds({ signal: controller.signal }));
    expect(err).toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('many calls on one signal add one abort listener to it, and its abort ends them all', async () => {
    const { client: api } = client();
    server.on('GET /gifts', hang);
    const controller = new AbortController();
    const pending = Array.from({ length: 20 }, (_, i) => api.listGifts({ offset: i }, { signal: controller.signal }));
    await server.arrived(20);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    for (const call of pending) expect(await upstreamFailure(call)).toMatchObject({ kind: 'aborted', attempts: 1 });
  });

  it('an attempt still waiting for a connection ends at once on an abort, and is never sent', async () => {
    const { client: api } = client({ connections: 1 });
    server.on('GET /gifts', hang);
    const controller = new AbortController();
    const first = api.listGifts({}, { signal: controller.signal });
    await server.arrived(1);
    // The one connection is taken: this call waits in the pool, and ends there while the first still hangs.
    const queued = new AbortController();
    const waiting = api.ping({ signal: queued.signal });
    let firstDone = false;
    void first.catch(() => (firstDone = true));
    queued.abort();
    expect(await upstreamFailure(waiting)).toMatchObject({ kind: 'aborted' });
    expect(firstDone).toBe(false);
    controller.abort();
    expect(await upstreamFailure(first)).toMatchObject({ kind: 'aborted' });
    // Give the pool a moment to reach the one it held back: it drops it instead of sending it.
    await new Promise((r) => setTimeout(r, 50));
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /papi/v1/gifts']);
  });

  it('an attempt stopped while it waits for a connection keeps its bulkhead slot until the pool drops it', async () => {
    const { client: api } = client({ connections: 1, maxInFlight: 2, laneShare: 1, queueTimeoutMs: 20 });
    server.on('GET /gifts', hang);
    server.on('GET /funds', json(200, { fundsbycurrency: {} }));
    const controller = new AbortController();
    const first = api.listGifts({}, { signal: controller.signal });
    await server.arrived(1);
    const queued = new AbortController();
    const waiting = api.ping({ signal: queued.signal });
    queued.abort();
    thrown.push(await failure(waiting));
    // The abandoned request is still in the pool's queue: the bulkhead counts it, so a third call is refused
    // rather than piling up behind it.
    expect(await upstreamFailure(api.getFunds())).toMatchObject({ kind: 'overloaded' });
    controller.abort();
    thrown.push(await failure(first));
    // The pool drops the abandoned one when the connection frees, and its slot with it.
    expect(await api.getFunds()).toBeDefined();
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /papi/v1/gifts', 'GET /papi/v1/funds']);
  });

  it('an already aborted signal sends nothing', async () => {
    const { client: api } = client();
    const err = await upstreamFailure(api.ping({ signal: AbortSignal.abort() }));
    expect(err.kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it('the bulkhead lets a waiting call fail as overloaded after the queue wait, and never sends it', async () => {
    const { client: api } = client({ maxInFlight: 1, queueTimeoutMs: 20 });
    server.on('GET /gifts', hang);
    const controller = new AbortController();
    const first = api.listGifts({}, { signal: controller.signal });
    await server.arrived(1);
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'overloaded', retryable: true, attempts: 1 });
    expect(err.message).toContain('20 ms');
    expect(server.requests).toHaveLength(1);
    controller.abort();
    thrown.push(await failure(first));
  });
});

describe('scopes', () => {
  const account = json(200, { username: 'ada', displayname: 'Ada' });

  it("a scoped view's calls carry its request id and wait in its lane; other lanes are served", async () => {
    // One slot per lane (half of two).
    const { client: api } = client({ maxInFlight: 2, laneShare: 0.5, queueTimeoutMs: 30 });
    server.on('GET /gifts', hang);
    server.on('GET /ping', account);
    const a = api.inScope({ lane: 'key:a', requestId: 'req-a' });
    const b = api.inScope({ lane: 'key:b', requestId: 'req-b' });
    const stop = new AbortController();
    const holding = a.listGifts({}, { signal: stop.signal });
    await server.arrived(1);
    expect(await upstreamFailure(a.ping())).toMatchObject({ kind: 'overloaded' });
    expect(await b.ping()).toMatchObject({ username: 'ada' });
    // The client itself works in the gateway's lane and sends no request id.
    expect(await api.ping()).toMatchObject({ username: 'ada' });
    expect(server.requests.map((r) => [r.url.split('?')[0], r.headers['x-request-id']])).toEqual([
      ['/papi/v1/gifts', 'req-a'],
      ['/papi/v1/ping', 'req-b'],
      ['/papi/v1/ping', undefined],
    ]);
    stop.abort();
    thrown.push(await failure(holding));
  });

  it("a scope's signal stops the calls of every view derived from it; views add to their parent's scope", async () => {
    const { client: api } = client();
    server.on('GET /gifts', hang);
    const stopping = new AbortController();
    const operation = api.inScope({ signal: stopping.signal }).inScope({ lane: 'key:a', requestId: 'req-a' });
    const pending = [operation.listGifts({}), operation.listGifts({ offset: 1 })];
    await server.arrived(2);
    expect(server.requests.map((r) => r.headers['x-request-id'])).toEqual(['req-a', 'req-a']);
    stopping.abort();
    for (const call of pending) expect(await upstreamFailure(call)).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it("a scope's logger gets the lines of its calls instead of the client's", async () => {
    const c = client({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
    server.on('GET /ping', raw(503, 'text/html', HTML_503), account);
    const lines: string[] = [];
    const log = {
      debug: (_obj: object, msg?: string) => void lines.push(`debug ${msg}`),
      warn: (_obj: object, msg?: string) => void lines.push(`warn ${msg}`),
    };
    await c.client.inScope({ log }).ping();
    expect(lines).toEqual(['debug upstream attempt failed', 'debug upstream attempt']);
    expect(c.logs).toEqual([]);
  });
});

describe('observability', () => {
  it('a throwing onCall listener does not fail the call', async () => {
    const warnings: object[] = [];
    const c = client({
      onCall: () => {
        throw new Error('metrics down');
      },
      logger: { debug: () => {}, warn: (obj) => warnings.push(obj) },
    });
    server.on('GET /regions', json(200, { regions: [] }));
    expect(await c.client.listRegions()).toEqual([]);
    expect(warnings).toEqual([{ route: 'GET /regions' }]);
  });

  it('per-attempt lines are not built when the logger says debug is off; warnings still are', async () => {
    const calls: string[] = [];
    const c = client({
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      onCall: () => {
        throw new Error('metrics down');
      },
      logger: {
        debug: (_obj, msg) => void calls.push(`debug ${msg}`),
        warn: (_obj, msg) => void calls.push(`warn ${msg}`),
        isLevelEnabled: () => false,
      },
    });
    server.on('GET /regions', raw(503, 'text/html', HTML_503), json(200, { regions: [] }));
    expect(await c.client.listRegions()).toEqual([]);
    expect(calls).toEqual(['warn upstream onCall listener threw']);
  });
});

describe('writes', () => {
  it('resend is never retried, and an unclear resend failure is not marked retryable', async () => {
    const { client: api } = client();
    server.on('PUT /gifts/g-1', raw(503, 'text/html', HTML_503));
    const err = await upstreamFailure(api.resendGift('g-1'));
    expect(err).toMatchObject({ status: 503, attempts: 1, retryable: false });
    expect(count('PUT /gifts/g-1')).toBe(1);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ resend: true });
  });

  it('a rate-limited resend is retryable (it was not processed) but still not retried', async () => {
    const { client: api } = client();
    server.on('PUT /gifts/g-1', json(429, { error: { code: 'ERROR_TOO_MANY_REQUESTS' }, status: 429 }));
    const err = await upstreamFailure(api.resendGift('g-1'));
    expect(err).toMatchObject({ status: 429, attempts: 1, retryable: true });
  });

  it('cancel may be retried', async () => {
    const { client: api } = client();
    server.on(
      'DELETE /gifts/g-1',
      reset,
      json(200, { gift: { uuid: 'g-1', campaign_uuid: 'c', status: 'GIVER_CANCELED', delivery_status: 'DELIVERED', price_in_cents: 1 } }),
    );
    expect((await api.cancelGift('g-1')).status).toBe('GIVER_CANCELLED');
    expect(count('DELETE /gifts/g-1')).toBe(2);
  });

  it('a create retried with the very same body finds its order after the answers were lost', async () => {
    const { client: api, events, logs } = client();
    server.on('POST /campaign', reset, raw(503, 'text/html', HTML_503), reset, raw(502, 'text/html', '<h1>Bad gateway</h1>'));
    server.on('GET /campaign/order-9', json(200, { campaign: { ...wireCampaign, link_count: 1 }, info: { code: 'INFO_CAMPAIGN_RETRIEVED' } }));
    const created = await api.createCampaign({ id: 'order-9', priceInCents: 1000, brandCodes: ['B'], deliveryType: 'SHORTLINK', linkCount: 1 });
    expect(created).toMatchObject({ recovered: true, funding: 'FUNDED', directLinks: null, info: { code: 'INFO_CAMPAIGN_RETRIEVED' } });
    expect(created.campaign.uuid).toBe('c-9');
    const posts = server.requests.filter((r) => r.method === 'POST').map((r) => r.body);
    expect(posts).toHaveLength(4);
    expect(new Set(posts).size).toBe(1);
    expect(events).toEqual([{ route: 'POST /campaign', status: 502, attempts: 4, durationMs: expect.any(Number), outcome: 'ok', recovered: true }]);
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('when the lookup does not find the order, the original error stands', async () => {
    const { client: api } = client();
    server.on('POST /campaign', reset);
    const err = await upstreamFailure(
      api.createCampaign({ id: 'order-10', priceInCents: 1000, brandCodes: ['B'], contacts: [{ email: 'a@example.com' }] }),
    );
    expect(err).toMatchObject({ kind: 'network', attempts: 4, retryable: true, route: 'POST /campaign', outcomeUnknown: true });
    expect(count('GET /campaign/order-10')).toBe(1);
  });

  it('a create that was only rate limited is not looked up', async () => {
    // Without the adaptive limit, which would hold the second attempt a second.
    const { client: api } = client({ retry: { maxAttempts: 2, baseDelayMs: 1 }, adaptiveLimit: false });
    server.on('POST /campaign', json(429, { error: { code: 'ERROR_TOO_MANY_REQUESTS' }, status: 429 }));
    const err = await upstreamFailure(
      api.createCampaign({ id: 'order-11', priceInCents: 1000, brandCodes: ['B'], contacts: [{ email: 'a@example.com' }] }),
    );
    expect(err).toMatchObject({ status: 429, code: 'ERROR_TOO_MANY_REQUESTS', attempts: 2, outcomeUnknown: false });
    expect(count('GET /campaign/order-11')).toBe(0);
  });

  it('an unreadable 200 on a create is an unknown outcome: not retried, the order is looked up', async () => {
    const { client: api } = client();
    server.on('POST /campaign', raw(200, 'application/json', '{"info":{"code":"INFO_CAMP'));
    server.on('GET /campaign/order-9', json(200, { campaign: { ...wireCampaign, link_count: 1 }, info: { code: 'INFO_CAMPAIGN_RETRIEVED' } }));
    const created = await api.createCampaign({ id: 'order-9', priceInCents: 1000, brandCodes: ['B'], deliveryType: 'SHORTLINK', linkCount: 1 });
    expect(created).toMatchObject({ recovered: true, campaign: { uuid: 'c-9' } });
    expect(count('POST /campaign')).toBe(1);
  });

  it('an unreadable 200 on a read is not an unknown outcome: reads change nothing', async () => {
    const { client: api } = client();
    server.on('GET /funds', raw(200, 'application/json', '{"fundsbycurr'));
    const err = await upstreamFailure(api.getFunds());
    expect(err).toMatchObject({ kind: 'invalid_response', outcomeUnknown: false });
  });

  it('direct links are recovered with every link, paging through GET /links/{id}', async () => {
    const { client: api } = client();
    server.on('POST /direct_links', raw(503, 'text/html', HTML_503));
    server.on('GET /campaign/dl-1', json(200, { campaign: { ...wireCampaign, id: 'dl-1', delivery_type: 'DIRECT_LINK', link_count: 60 } }));
    const page = (from: number, n: number) => ({
      directlinks: Array.from({ length: n }, (_, i) => ({ number: from + i, link: `https://r/${from + i}` })),
      number_of_results: n,
      limit: 50,
      offset: from - 1,
      total_count: 60,
    });
    server.on('GET /links/dl-1', json(200, page(1, 50)), json(200, page(51, 10)));
    const created = await api.createDirectLinks({ id: 'dl-1', priceInCents: 1000, brandCodes: ['B'], linkCount: 60 });
    expect(created.recovered).toBe(true);
    expect(created.directLinks).toHaveLength(60);
    expect(created.directLinks?.[59]).toBe('https://r/60');
    const linkQueries = server.requests.filter((r) => r.url.includes('/links/')).map((r) => new URL(r.url, 'http://x').search);
    expect(linkQueries).toEqual(['?limit=50&offset=0', '?limit=50&offset=50']);
  });

  it('an embedded reward is recovered with its gift link from GET /gifts?campaign_id=', async () => {
    const { client: api } = client();
    server.on('POST /embedded', reset);
    server.on('GET /campaign/emb-1', json(200, { campaign: { ...wireCampaign, id: 'emb-1', uuid: 'e-1', delivery_type: 'EMBEDDED' } }));
    server.on(
      'GET /gifts',
      json(200, {
        gifts: [
          {
            uuid: 'g',
            campaign_uuid: 'e-1',
            campaign_id: 'emb-1',
            status: 'SENT_AND_REDEEMABLE',
            delivery_status: 'LINKCREATED',
            price_in_cents: 1000,
            shortlink: 'https://r/emb',
          },
        ],
      }),
    );
    const reward = await api.createEmbeddedReward({ id: 'emb-1', brandCode: 'B', priceInCents: 1000 });
    expect(reward).toEqual({
      campaign: { id: 'emb-1', uuid: 'e-1', brandCode: 'B', priceInCents: 1000, fees: null },
      giftLink: 'https://r/emb',
      recovered: true,
    });
    expect(server.requests.at(-1)?.url).toBe('/papi/v1/gifts?campaign_id=emb-1&limit=1');
  });

  it('an embedded order found without a readable gift link fails, saying the order exists', async () => {
    const { client: api } = client();
    server.on('POST /embedded', raw(503, 'text/html', HTML_503));
    server.on('GET /campaign/emb-2', json(200, { campaign: { ...wireCampaign, id: 'emb-2', delivery_type: 'EMBEDDED' } }));
    server.on(
      'GET /gifts',
      json(200, {
        gifts: [{ uuid: 'g', campaign_uuid: 'c-9', status: 'REDEEMED', delivery_status: 'LINKCREATED', price_in_cents: 1000, shortlink: null }],
      }),
    );
    const err = await upstreamFailure(api.createEmbeddedReward({ id: 'emb-2', brandCode: 'B', priceInCents: 1000 }));
    expect(err).toMatchObject({ status: 503, retryable: true, attempts: 4 });
    expect(err.message).toContain('the order exists');
  });

  it('a top-up with an unknown outcome is marked so, and retrying with the same id is safe', async () => {
    const { client: api } = client();
    server.on('POST /funds', raw(503, 'text/html', HTML_503));
    const err = await upstreamFailure(api.addFunds({ id: 'f-2', currency: 'USD', amountInCents: 30_000 }));
    expect(err).toMatchObject({ status: 503, attempts: 4, retryable: true, outcomeUnknown: true });
    expect(server.requests.every((r) => r.method === 'POST')).toBe(true);
  });
});
