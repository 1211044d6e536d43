import { register } from 'node:module';
import { tracingEnabled } from './config.js';
import type { Tracing, TracingSettings } from './sdk.js';

// Turning tracing on, before anything it instruments is loaded. src/main.ts calls this first and imports the
// rest of the gateway afterwards (dynamically), because instrumentations patch modules as they are loaded:
// - node:http (the server span) is imported by ES modules, which require-in-the-middle never sees; an
//   import-in-the-middle loader hook, registered here with the message channel so that it wraps only the
//   modules an instrumentation asked for, lets the http instrumentation patch it on import;
// - ioredis is CommonJS, loaded with require() by cluster/redis.ts: require-in-the-middle patches it.
// The upstream client's spans are its own (upstream/transport.ts): nothing of undici is instrumented.
// With tracing off nothing of the SDK is imported (the imports below are dynamic): @opentelemetry/api stays a
// no-op and the gateway's spans record nothing.

export async function startTracing(config: TracingSettings): Promise<Tracing | null> {
  if (!tracingEnabled(config)) return null;
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const { startSdk } = await import('./sdk.js');
  const sdk = await startSdk(config);
  // The loader runs on its own thread: it must know every module to wrap before the gateway is imported.
  await waitForAllMessagesAcknowledged();
  return sdk;
}
