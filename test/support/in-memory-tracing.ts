import { context, propagation, trace } from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll } from 'vitest';

// A file's spans in memory: a tracer provider registered globally for the file and taken down after it. The
// OpenTelemetry API keeps the first provider it delegated to, so each file that calls this runs in a module
// graph of its own (vitest.config.ts lists them among the process suites).

export interface InMemoryTracing {
  exporter: tracing.InMemorySpanExporter;
  provider: node.NodeTracerProvider;
}

/** Registers the provider before the file's tests (after `also.register`, if given) and takes it down after them. */
export function inMemoryTracing(also: { register?(provider: node.NodeTracerProvider): void; disable?(): void } = {}): InMemoryTracing {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new node.NodeTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
    also.register?.(provider);
  });
  afterAll(async () => {
    also.disable?.();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  return { exporter, provider };
}
