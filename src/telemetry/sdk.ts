import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import type { TelemetrySettings } from './config.js';

// The OpenTelemetry SDK and its instrumentations, loaded by telemetry/start.ts only when tracing is on.
//
// The SDK reads the standard OTEL_* variables itself (telemetry/config.ts declares and checks them): the
// endpoint, the sampler, the resource attributes, the batch processor's delays. Here it gets only what the
// gateway decides: traces only (no OTLP metrics or logs: Prometheus and stdout carry those), the exporter of
// the configured protocol, the service name, and the instrumentations, each set so that no secret becomes an
// attribute:
// - http: the server span of each request, continuing the caller's `traceparent`. It records no header
//   (headers are recorded only when listed, and none is), and the query string's GraphQL parameters
//   (variables, documents) and anything named like a credential are redacted. Probes and /metrics are not
//   traced. Its client side is off: the gateway's own calls go through undici, and node:http clients are only
//   the exporter's (which the SDK never traces).
// The client span of an upstream attempt is not an instrumentation's: the transport makes it where it hands the
// request to undici (telemetry/spans.ts startClientSpan), as docs/operations.md explains.
// - ioredis: one span per command inside a traced operation or background span, named by the command alone:
//   arguments are never recorded (AUTH carries the password, values carry the gateway's state).

export type TracingSettings = Pick<
  TelemetrySettings,
  'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_PROTOCOL' | 'OTEL_SERVICE_NAME' | 'OTEL_SDK_DISABLED'
>;

export interface Tracing {
  /**
   * Sends the spans still buffered and stops the SDK; called at shutdown. Resolves false when the collector
   * did not take them within FLUSH_LIMIT_MS; never rejects: a stop never fails, nor waits long, for tracing.
   */
  shutdown(): Promise<boolean>;
}

/** Query parameters whose values never reach a span: GraphQL-over-HTTP's, and names credentials go by. */
const REDACTED_QUERY_PARAMETERS = ['query', 'variables', 'extensions', 'key', 'api_key', 'apiKey', 'token', 'access_token', 'sig', 'signature'];
/**
 * How long the last spans get to reach the collector at shutdown. The exporter retries an unreachable
 * collector for up to OTEL_EXPORTER_OTLP_TIMEOUT (10 s), which would hold the process past its drain and turn
 * a clean stop into a failed one; the spans of a collector that is away are lost either way.
 */
const FLUSH_LIMIT_MS = 2_000;
const UNTRACED_PATHS = /^\/(health|ready|metrics)(?:[/?]|$)/;
const GRAPHQL_ROUTE = /^\/graphql(?:[?]|$)/;

async function exporterFor(protocol: TracingSettings['OTEL_EXPORTER_OTLP_PROTOCOL']) {
  // Each reads the endpoint from OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT as the specification says.
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

export async function startSdk(settings: TracingSettings): Promise<Tracing> {
  const sdk = new NodeSDK({
    serviceName: settings.OTEL_SERVICE_NAME,
    traceExporter: await exporterFor(settings.OTEL_EXPORTER_OTLP_PROTOCOL),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        disableOutgoingRequestInstrumentation: true,
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? ''),
        redactedQueryParamsServer: REDACTED_QUERY_PARAMETERS,
        // Server spans are named "{method} {http.route}" when the route is known: /graphql is the one route.
        startIncomingSpanHook: (request) => (GRAPHQL_ROUTE.test(request.url ?? '') ? { 'http.route': '/graphql' } : {}),
        requestHook(span, request) {
          if ('url' in request && 'method' in request && GRAPHQL_ROUTE.test(request.url ?? '')) span.updateName(`${request.method} /graphql`);
        },
      }),
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  return {
    shutdown: () =>
      Promise.race([
        sdk.shutdown().then(
          () => true,
          () => false,
        ),
        sleep(FLUSH_LIMIT_MS, false, { ref: false }),
      ]),
  };
}
