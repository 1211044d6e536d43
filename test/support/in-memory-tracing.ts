import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { core, node, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll } from 'vitest';

// A file's spans in memory. The OpenTelemetry API lets a process register one global tracer provider, and the
// gateway's tracer (src/telemetry/spans.ts) keeps the first one it delegated to; files of a worker share one module
// graph (vitest.config.ts), so there is one provider per module graph, registered when this module loads and
// kept. Each file switches it on for its own tests: between files it samples nothing, and the context
// manager and propagator are taken down, so the files after it run as with tracing off (no span, no traceparent,
// no AsyncLocalStorage on every promise).

export interface InMemoryTracing {
  exporter: tracing.InMemorySpanExporter;
  provider: node.NodeTracerProvider;
}

let recording = false;
const exporter = new tracing.InMemorySpanExporter();
const provider = new node.NodeTracerProvider({
  spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  sampler: {
    shouldSample: () => ({ decision: recording ? tracing.SamplingDecision.RECORD_AND_SAMPLED : tracing.SamplingDecision.NOT_RECORD }),
    toString: () => 'InMemoryTracingSwitch',
  },
});
trace.setGlobalTracerProvider(provider);

/** Records the file's spans (after `also.register`, if given) from before its tests until after them. */
export function inMemoryTracing(also: { register?(provider: node.NodeTracerProvider): void; disable?(): void } = {}): InMemoryTracing {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
    exporter.reset();
    recording = true;
    also.register?.(provider);
  });
  afterAll(() => {
    also.disable?.();
    recording = false;
    exporter.reset();
    context.disable();
    propagation.disable();
  });
  return { exporter, provider };
}
