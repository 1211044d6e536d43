import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

// A minimal OTLP/HTTP trace receiver for tests: it keeps every body posted to /v1/traces as received (the raw
// bytes, for the no-secret checks) and decodes them into plain spans. Protobuf is decoded with protobufjs
// (the decoder the OpenTelemetry collector's JavaScript tooling and gRPC's proto-loader use) from the subset
// of opentelemetry-proto's trace messages a test reads, field numbers as in opentelemetry/proto/trace/v1 and
// collector/trace/v1; JSON is OTLP/JSON (ids as hex, enums as numbers).

const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  repeated Event events = 11; repeated Link links = 13; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const Request = protobuf.parse(PROTO, { keepCase: false }).root.lookupType('ExportTraceServiceRequest');

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, unknown>;
}

export interface ReceivedBody {
  contentType: string;
  bytes: Buffer;
}

const hex = (value: unknown): string =>
  value instanceof Uint8Array ? Buffer.from(value).toString('hex') : typeof value === 'string' ? value.toLowerCase() : '';

function anyValue(value: any): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

const attributes = (list: any[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv: any) => [kv.key, anyValue(kv.value)]));

/** The spans of one export request, protobuf or JSON, as plain objects. */
export function decodeSpans(body: ReceivedBody): ExportedSpan[] {
  const request: any = body.contentType.includes('json')
    ? JSON.parse(body.bytes.toString('utf8'))
    : Request.toObject(Request.decode(body.bytes), { longs: String, defaults: false });
  const spans: ExportedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind ?? 0,
          scope: scopeSpans.scope?.name ?? '',
          attributes: attributes(span.attributes),
          events: (span.events ?? []).map((e: any) => ({ name: e.name, attributes: attributes(e.attributes) })),
          links: (span.links ?? []).map((l: any) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          statusCode: span.status?.code ?? 0,
          resource,
        });
      }
    }
  }
  return spans;
}

export interface OtlpReceiver {
  /** e.g. http://127.0.0.1:4318, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  bodies: ReceivedBody[];
  spans(): ExportedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: ReceivedBody[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push({ contentType: String(req.headers['content-type'] ?? ''), bytes: Buffer.concat(chunks) });
      }
      // An empty ExportTraceServiceResponse: full success, in either encoding.
      const json = String(req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    spans: () => bodies.flatMap(decodeSpans),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
