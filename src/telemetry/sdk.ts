import { setTimeout as sleep } from 'node:timers/promises';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import type { TelemetrySettings } from './config.js';

// The OpenTelemetry SDK and its instrumentations, loaded by telemetry/start.ts only when tracing is on.
//
// The SDK reads the standard OTEL_* variables itself (telemetry/config.ts declares and checks them): the
// endpoint, the sampler, the resource attributes, the batch processor's delays. Here it gets only what the
// gateway decides: traces only (no OTLP metrics or logs: Prometheus and stdout carry those), the exporter of
// the configured protocol, the service name, and one instrumentation, set so that no secret becomes an
// attribute: ioredis, one span per command inside a traced operation or background span, named by the command alone:
// arguments are never recorded (AUTH carries the password, values carry the gateway's state).
// The server span of a request and the client span of an upstream attempt are not an instrumentation's: the
// gateway's HTTP entry and its upstream transport make them (telemetry/server-span.ts, telemetry/spans.ts
// startClientSpan), as docs/operations.md explains.

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

/**
 * How long the last spans get to reach the collector at shutdown. The exporter retries an unreachable
 * collector for up to OTEL_EXPORTER_OTLP_TIMEOUT (10 s), which would hold the process past its drain and turn
 * a clean stop into a failed one; the spans of a collector that is away are lost either way.
 */
const FLUSH_LIMIT_MS = 2_000;

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
    instrumentations: [new IORedisInstrumentation({ dbStatementSerializer: (command) => command })],
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
