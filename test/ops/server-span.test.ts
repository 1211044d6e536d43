import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/redaction.js';
import { inServerSpan } from '../../src/telemetry/server-span.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

// The server span of a request, made by the gateway's HTTP entry (telemetry/server-span.ts): the caller's trace
// continued, the HTTP attributes, the query string's GraphQL parameters and credentials redacted, an error status
// for a 5xx only, and no span for the probes and /metrics. In process, over real sockets, with an in-memory
// exporter behind the global tracer provider (taken down after the file).

const { exporter } = inMemoryTracing();
// A gateway API key as keys are made (`gwk_live_` and 32 hex digits), known to the redactor.
const KEY = `gwk_live_${randomBytes(16).toString('hex')}`;
const redactor = createRedactor([KEY]);
afterEach(() => exporter.reset());
const servers = () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
// The span ends when the response closes, which the client may see a moment after its answer.
const ended = async (count: number) => {
  for (let i = 0; i < 100 && servers().length < count; i++) await new Promise((r) => setTimeout(r, 5));
  return servers();
};

describe('inServerSpan', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [path = '/', query] = (req.url ?? '/').split(/\?(.*)/s);
      inServerSpan(req, res, { path, query }, redactor.redact, () => {
        const status = Number(path.slice(1)) || 200;
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("continues the caller's traceparent, with the HTTP attributes of the conventions", async () => {
    const trace = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    await fetch(`${base}/graphql`, { method: 'POST', headers: { traceparent: `00-${trace}-${parent}-01` }, body: '{}' });
    const [span] = await ended(1);
    expect(span!.name).toBe('POST /graphql');
    expect(span!.spanContext().traceId).toBe(trace);
    expect(span!.parentSpanContext?.spanId).toBe(parent);
    expect(span!.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'url.path': '/graphql',
      'url.scheme': 'http',
      'network.protocol.version': '1.1',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(base).port),
      'client.address': '127.0.0.1',
      'http.response.status_code': 200,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("redacts the query string's GraphQL parameters and credentials, whatever their case or encoding", async () => {
    const secret = `tok_${randomBytes(12).toString('hex')}`;
    const query = `query=${encodeURIComponent('{ funds { amount } }')}&variables=%7B%7D&Token=${secret}&api%5Fkey=${secret}&page=2&flag`;
    await fetch(`${base}/graphql?${query}`);
    const [span] = await ended(1);
    expect(span!.attributes['url.query']).toBe('query=REDACTED&variables=REDACTED&Token=REDACTED&api%5Fkey=REDACTED&page=2&flag');
    expect(JSON.stringify(span!.attributes)).not.toContain(secret);
    expect(JSON.stringify(span!.attributes)).not.toContain('funds');
  });

  it('blanks a known secret in the path or under any other parameter name, as the logs do', async () => {
    await fetch(`${base}/hooks/${KEY}?k=${KEY}&page=2`);
    const [span] = await ended(1);
    expect(span!.attributes['url.path']).toBe('/hooks/[redacted]');
    expect(span!.attributes['url.query']).toBe('k=[redacted]&page=2');
    expect(JSON.stringify(span!.attributes)).not.toContain(KEY.slice(-16));
  });

  it('marks a 5xx as an error and a 4xx not (the client is to blame); a path other than /graphql has no route', async () => {
    await fetch(`${base}/503`);
    await fetch(`${base}/404`);
    const spans = await ended(2);
    const byStatus = new Map(spans.map((s) => [s.attributes['http.response.status_code'], s]));
    expect(byStatus.get(503)!.status.code).toBe(SpanStatusCode.ERROR);
    expect(byStatus.get(503)!.attributes['error.type']).toBe('503');
    expect(byStatus.get(404)!.status.code).toBe(SpanStatusCode.UNSET);
    expect(byStatus.get(404)!.attributes['error.type']).toBeUndefined();
    expect(spans.map((s) => [s.name, s.attributes['http.route']])).toEqual([
      ['GET', undefined],
      ['GET', undefined],
    ]);
  });
});

describe("the gateway's HTTP entry", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // Tracing on (an endpoint set); the SDK itself is main.ts's to start, so spans go to the provider above.
    gateway = await startTestGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } });
  });
  afterAll(() => gateway?.close());

  it('traces an operation under its request, and neither the probes nor /metrics', async () => {
    for (const path of ['/health', '/ready', '/metrics']) expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
    const res = await gateway.gql('query Regions { __typename }');
    expect(res.status).toBe(200);
    const [server] = await ended(1);
    expect(servers()).toHaveLength(1);
    expect(server!.name).toBe('POST /graphql');
    const operation = exporter.getFinishedSpans().find((s) => s.name === 'query Regions');
    expect(operation?.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
  });
});
