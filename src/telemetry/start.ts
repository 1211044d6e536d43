import { tracingEnabled } from './config.js';
import type { Tracing, TracingSettings } from './sdk.js';

// Turning tracing on, before anything it instruments is loaded. src/main.ts calls this first and imports the
// rest of the gateway afterwards (dynamically), because the one instrumentation patches a module as it is
// loaded: ioredis is CommonJS, loaded with require() by cluster/redis.ts, and require-in-the-middle patches it.
// The server spans and the upstream client spans are the gateway's own (telemetry/server-span.ts,
// upstream/transport.ts): nothing of node:http or undici is patched, so no ES module loader hook is needed.
// With tracing off nothing of the SDK is imported (the import below is dynamic): @opentelemetry/api stays a
// no-op and the gateway's spans record nothing.

export async function startTracing(config: TracingSettings): Promise<Tracing | null> {
  if (!tracingEnabled(config)) return null;
  const { startSdk } = await import('./sdk.js');
  return startSdk(config);
}
