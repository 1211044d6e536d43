import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, vi } from 'vitest';
import { createWebhookEgress } from '../../src/webhooks/egress.js';
import { it } from '../support/test.js';
import { captureClient, expectTokenAbsent, failure, TOKEN } from './helpers.js';
import { hang, json, raw, reset } from './quirks-server.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

// The upstream client's part of a trace, in process: an in-memory exporter behind the SDK's tracer provider.
// One client span per attempt (the transport's) with its retry number, URL template and outcome, the recovery
// of a lost create as a span around its lookup, and the breaker's decisions as events. Each test runs its calls
// inside a span of its own, as an operation would. The providers are global: they are taken down after the file.

const { exporter } = inMemoryTracing();

afterEach(() => exporter.reset());

const inOperation = <T>(run: () => Promise<T>) => trace.getTracer('test').startActiveSpan('operation', (span) => run().finally(() => span.end()));
const spans = () => exporter.getFinishedSpans();
const wireCampaign = { id: 'order-9', uuid: 'c-9', status: 'CAMPAIGN_CREATED', delivery_type: 'SHORTLINK', price_in_cents: 1000, brand_codes: ['B'] };

describe('upstream spans', () => {
  it('one client span per attempt, with its retry number, and the recovery of a lost create around its lookup', async ({ quirks }) => {
    const { client } = captureClient({ baseUrl: quirks.baseUrl });
    try {
      // Reset, 503, then resets until the attempts are spent.
      quirks.on('POST /campaign', reset, raw(503, 'text/html', '<h1>busy</h1>'), reset);
      quirks.on('GET /campaign/order-9', json(200, { campaign: { ...wireCampaign, link_count: 1 }, info: { code: 'INFO_CAMPAIGN_RETRIEVED' } }));
      const created = await inOperation(() =>
        client.createCampaign({ id: 'order-9', priceInCents: 1000, brandCodes: ['B'], deliveryType: 'SHORTLINK', linkCount: 1 }),
      );
      expect(created.recovered).toBe(true);
    } finally {
      await client.close();
    }
    const posts = spans().filter((s) => s.name === 'POST /campaign');
    expect(posts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2, 3]);
    expect(posts.map((s) => s.attributes['http.response.status_code'])).toEqual([undefined, 503, undefined, undefined]);
    expect(posts.every((s) => s.attributes['url.template'] === '/campaign')).toBe(true);
    // No answer: the network error's code; the 503: its status. Each an error, with no message (no upstream text).
    expect(posts.map((s) => s.attributes['error.type'])).toEqual([
      expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/),
      '503',
      expect.any(String),
      expect.any(String),
    ]);
    expect(posts.map((s) => s.status)).toEqual(posts.map(() => ({ code: SpanStatusCode.ERROR })));
    const { port, hostname } = new URL(quirks.baseUrl);
    expect(posts[0]!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': hostname,
      'server.port': Number(port),
      'url.full': `${quirks.baseUrl}/campaign`,
    });
    expect(posts[0]!.kind).toBe(SpanKind.CLIENT);
    expect(quirks.requests).toHaveLength(posts.length + 1);
    // Each request carried the traceparent of its own client span.
    const sent = spans().filter((s) => s.kind === 2);
    expect(quirks.requests.map((r) => String(r.headers.traceparent).split('-')[2]).sort()).toEqual(sent.map((s) => s.spanContext().spanId).sort());

    const recovery = spans().find((s) => s.name === 'upstream recovery POST /campaign')!;
    expect(recovery.attributes).toMatchObject({ 'reward.recovery.found': true, 'reward.recovery.differs': false });
    const lookup = spans().find((s) => s.name === 'GET /campaign/{id}')!;
    expect(lookup.parentSpanContext?.spanId).toBe(recovery.spanContext().spanId);
    expect(lookup.attributes).toMatchObject({ 'http.response.status_code': 200 });
    expect(lookup.attributes['http.request.resend_count']).toBeUndefined();
    expect(lookup.attributes['error.type']).toBeUndefined();
    expect(lookup.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("blanks a secret in the client span's URL: an id a caller sent is the caller's text", async ({ quirks }) => {
    // A caller who pastes the upstream token as an order id: the span's URL must not carry it.
    const { client } = captureClient({ baseUrl: quirks.baseUrl });
    // No route for it: the quirks server answers 404, and the lookup null.
    try {
      await inOperation(() => client.getCampaign(TOKEN));
    } finally {
      await client.close();
    }
    const [lookup] = spans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(lookup!.attributes['url.full']).toBe(`${quirks.baseUrl}/campaign/[redacted]`);
    expectTokenAbsent([lookup!.attributes, lookup!.name]);
  });

  it("keeps a recipient's email and name out of the client span's URL; the other filters stay readable", async ({ quirks }) => {
    quirks.on('GET /gifts', json(200, { gifts: [], total_count: 0 }));
    const { client } = captureClient({ baseUrl: quirks.baseUrl });
    try {
      await inOperation(() =>
        client.listGifts({
          campaignUuid: 'c-2026-11-29',
          recipientEmail: 'Zoë.Müller+gifts@example.com',
          recipientName: 'Zoë Müller',
          limit: 20,
          offset: 0,
        }),
      );
    } finally {
      await client.close();
    }
    const [call] = spans().filter((s) => s.kind === SpanKind.CLIENT);
    const url = String(call!.attributes['url.full']);
    // The upstream still got the filters: only the span leaves them out.
    expect(quirks.requests[0]!.url).toContain('recipient_email=Zo%C3%AB.M%C3%BCller%2Bgifts%40example.com');
    expect(url).toBe(`${quirks.baseUrl}/gifts?campaign_uuid=c-2026-11-29&recipient_email=REDACTED&recipient_name=REDACTED&limit=20&offset=0`);
    expect(JSON.stringify(call!.attributes)).not.toMatch(/Zo|M%C3%BCller|example\.com/);
  });

  it('ends the client span of an attempt that timed out or was stopped, with why and no status', async ({ quirks }) => {
    // The upstream never answers: the attempt's deadline ends one call, the caller's own stop the other.
    quirks.on('GET /campaign/order-2026-11-29-timeout', hang);
    quirks.on('GET /campaign/order-2026-11-29-stopped', hang);
    const { client } = captureClient({
      baseUrl: quirks.baseUrl,
      timeoutMs: 50,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, budgetMs: 1_000 },
    });
    const stop = new AbortController();
    try {
      await inOperation(async () => {
        await failure(client.getCampaign('order-2026-11-29-timeout'));
        const stopped = failure(client.getCampaign('order-2026-11-29-stopped', { signal: stop.signal }));
        setTimeout(() => stop.abort(), 10);
        await stopped;
      });
    } finally {
      await client.close();
    }
    const calls = spans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(
      calls.map((s) => [String(s.attributes['url.full']).split('/').pop(), s.attributes['error.type'], s.attributes['http.response.status_code']]),
    ).toEqual([
      ['order-2026-11-29-timeout', 'timeout', undefined],
      ['order-2026-11-29-stopped', 'aborted', undefined],
    ]);
    expect(calls.every((s) => s.status.code === SpanStatusCode.ERROR && s.ended)).toBe(true);
  });

  const CALLS = 128;
  it('a call that waited for a connection has its own client span: its route, under its own operation', async ({ quirks }) => {
    // As many calls at once as the bulkhead lets through (one lane allowed all of it), each answered 5 ms late by its
    // own handler, so that calls overlap and connections are reused while others wait. With
    // @opentelemetry/instrumentation-undici, a request the pool held back was started in the context of the call
    // that freed its connection: 64 of these 128 spans sat under another operation, named for another route. The
    // transport now makes each span where it hands its own attempt to undici, whatever the pool then does.
    const { client } = captureClient({ baseUrl: quirks.baseUrl, maxInFlight: CALLS, laneShare: 1 });
    const slow = (body: unknown) => (_req: unknown, res: import('node:http').ServerResponse) =>
      setTimeout(() => json(200, body)(_req as never, res), 5);
    // The quirks server matches whole paths: each campaign call's own.
    for (let i = 1; i < CALLS; i += 2) quirks.on(`GET /campaign/order-${i}`, slow({ campaign: { ...wireCampaign, id: `order-${i}` } }));
    quirks.on('GET /gifts', slow({ gifts: [], total_count: 0 }));
    let answers: unknown[] = [];
    try {
      answers = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          trace
            .getTracer('test')
            .startActiveSpan(`operation ${i}`, (span) =>
              (i % 2 ? client.getCampaign(`order-${i}`) : client.listGifts({ campaignUuid: `c-${i}`, limit: 20, offset: 0 })).finally(() =>
                span.end(),
              ),
            ),
        ),
      );
    } finally {
      await client.close();
    }
    // Every call was answered, slowly, by its own handler: none was a 404 the client read as "no such order".
    expect(answers.filter((a) => a === null)).toEqual([]);
    expect(quirks.requests).toHaveLength(CALLS);
    const byId = new Map(spans().map((s) => [s.spanContext().spanId, s]));
    const calls = spans().filter((s) => s.kind === 2);
    expect(calls).toHaveLength(CALLS);
    expect(calls.map((s) => s.attributes['http.response.status_code'])).toEqual(Array(CALLS).fill(200));
    // Call i asked for order-i or the rewards of c-i: its span must be named for its route and sit under operation i.
    const misplaced = calls
      .map((s) => ({ name: s.name, url: String(s.attributes['url.full']), parent: byId.get(s.parentSpanContext?.spanId ?? '')?.name }))
      .filter(({ name, url, parent }) => {
        const gifts = url.includes('/gifts');
        const i = /(?:order|c)-(\d+)/.exec(url)?.[1];
        return name !== (gifts ? 'GET /gifts' : 'GET /campaign/{id}') || parent !== `operation ${i}`;
      });
    expect(misplaced).toEqual([]);
  });

  it("the breaker's probe runs outside the operation that opened the circuit: no span of it under that operation", async ({ quirks }) => {
    const { client, logs } = captureClient({ baseUrl: quirks.baseUrl, breaker: { failures: 2, halfOpenAfterMs: 20 } });
    try {
      quirks.on('GET /funds', raw(503, 'text/html', '<h1>down</h1>'));
      quirks.on('GET /ping', json(200, { status: 'ok' }));
      await inOperation(async () => {
        await failure(client.getFunds());
        await failure(client.getFunds());
        // The probe, 20 ms after the circuit opened, in a timer this operation scheduled, while it still records (a
        // subscription's, a poll's); its success closes the circuit.
        await vi.waitFor(() => expect(logs.map((l) => l.msg)).toContain('upstream circuit closed: the reward API answers again'));
      });
    } finally {
      await client.close();
    }
    expect(quirks.requests.map((r) => `${r.method} ${r.url.split('/').pop()}`)).toEqual(['GET funds', 'GET funds', 'GET ping']);
    expect(
      spans()
        .filter((s) => s.kind === SpanKind.CLIENT)
        .map((s) => s.name),
    ).toEqual(['GET /funds', 'GET /funds']);
  });

  it("the breaker's transition and its refusals are events on the operation's span, with no client span", async ({ quirks }) => {
    const { client } = captureClient({ baseUrl: quirks.baseUrl, breaker: { failures: 2, halfOpenAfterMs: 60_000 } });
    try {
      quirks.on('GET /funds', raw(503, 'text/html', '<h1>down</h1>'));
      await inOperation(async () => {
        await failure(client.getFunds());
        await failure(client.getFunds());
      });
    } finally {
      await client.close();
    }
    const operation = spans().find((s) => s.name === 'operation')!;
    const events = operation.events.map((e) => e.name);
    const clients = spans().filter((s) => s.name === 'GET /funds');
    expect(clients.length).toBe(quirks.requests.length);
    expect(clients).toHaveLength(2);
    const transition = operation.events.find((e) => e.name === 'upstream.breaker.transition');
    expect(transition?.attributes).toEqual({ 'reward.breaker.from': 'closed', 'reward.breaker.to': 'open' });
    expect(events).toContain('upstream.circuit_open.refused');
  });
});

describe('webhook deliveries', () => {
  it('are not traced: no client span with the receiver URL, no traceparent sent to the receiver', async () => {
    const received: IncomingHttpHeaders[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.headers);
      req.resume().on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const egress = createWebhookEgress({ allowedHosts: ['127.0.0.1'], requireHttps: false });
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook/RECEIVER-PATH-TOKEN?token=RECEIVER-QUERY-TOKEN`;
      const outcome = await inOperation(() => egress.send({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5_000 }));
      expect(outcome).toMatchObject({ kind: 'answered', status: 200 });
    } finally {
      await egress.close();
      await new Promise((resolve) => receiver.close(resolve));
    }
    expect(received).toHaveLength(1);
    expect(received[0]!.traceparent).toBeUndefined();
    // The operation's own span only: the attempt made none, so the receiver's URL is in no attribute.
    expect(spans().map((s) => s.name)).toEqual(['operation']);
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain('RECEIVER');
  });
});
