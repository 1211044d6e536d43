import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from './config.js';
import { listenFailure, StartUpFailure } from './shared/listen-failure.js';
import type { RunningSandbox } from './sandbox/index.js';
import { startTracing } from './telemetry/start.js';

// Process entry: config → (embedded sandbox when no upstream is configured) → gateway → graceful shutdown.
// stdout carries only JSON log lines, in every mode, so log shippers can parse all of it; the welcome for
// newcomers running on the embedded sandbox (never production) is plain text on stderr.

function welcome(url: string, sandbox: RunningSandbox): void {
  process.stderr.write(
    [
      '',
      `reward-gateway is listening on ${url}/graphql (open it in a browser for GraphiQL)`,
      `No REWARD_API_URL set: using the embedded sandbox at ${sandbox.baseUrl}`,
      `Sandbox control API: ${sandbox.origin}/__sandbox/ (redeem, bounce, expire, top up, clock, faults)`,
      `Try: curl -s ${url}/graphql -H 'content-type: application/json' -d '{"query":"{ viewer { username } funds { balances { currency availableInCents } } }"}'`,
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Tracing starts before the rest of the gateway is loaded, so its ioredis instrumentation sees ioredis load
  // (telemetry/start.ts); hence the dynamic imports below. With tracing off it loads nothing.
  const tracing = await startTracing(config);
  const [
    { createLogger, logLevel },
    { createMetrics },
    { handleShutdownSignals },
    { configuredSecrets, createRedactor },
    { createGateway },
    { upstreamClientFromConfig },
    { startHeapTrim },
  ] = await Promise.all([
    import('./ops/logger.js'),
    import('./ops/metrics.js'),
    import('./ops/shutdown-signals.js'),
    import('./redaction/redaction.js'),
    import('./app.js'),
    import('./upstream/from-config.js'),
    import('./ops/heap-trim.js'),
  ]);
  // One redactor for logs, errors, metrics and the upstream's text; the embedded sandbox's token joins it once the
  // sandbox exists.
  const redactor = createRedactor(configuredSecrets(config));
  const logger = createLogger({ level: logLevel(config), redactor });

  let sandbox: RunningSandbox | null = null;
  let target: { baseUrl: string; token: string };
  if (config.REWARD_API_URL && config.REWARD_API_TOKEN) {
    target = { baseUrl: config.REWARD_API_URL, token: config.REWARD_API_TOKEN };
  } else {
    // Loaded only here: a gateway pointed at a real upstream never carries the sandbox's code.
    const { startSandbox } = await import('./sandbox/index.js');
    const host = '127.0.0.1';
    sandbox = await startSandbox({ port: config.SANDBOX_PORT, host }).catch((error: unknown) => {
      // The embedded sandbox's host is fixed (loopback): only its port is the operator's to change.
      throw listenFailure(error, { port: config.SANDBOX_PORT, portVariable: 'SANDBOX_PORT', host, hostVariable: 'HOST' });
    });
    redactor.add(sandbox.token);
    target = { baseUrl: sandbox.baseUrl, token: sandbox.token };
    logger.info({ sandboxUrl: sandbox.baseUrl, controlUrl: `${sandbox.origin}/__sandbox/` }, 'no REWARD_API_URL set: using the embedded sandbox');
  }

  const metrics = createMetrics();
  const client = upstreamClientFromConfig(config, target, { onCall: metrics.upstreamCall, logger, redact: redactor.redact });
  const gateway = createGateway({ config, client, logger, metrics, redactor });
  const url = await gateway.start().catch(async (error: unknown) => {
    await sandbox?.close();
    throw listenFailure(error, { port: config.PORT, portVariable: 'PORT', host: config.HOST, hostVariable: 'HOST' });
  });
  const heapTrim = startHeapTrim({ afterMs: config.HEAP_TRIM_AFTER_MS, collect: (globalThis as { gc?: () => void }).gc });
  // Said where it matters: a production start without start:prod's flags keeps a load's memory until V8 next
  // collects in full.
  if (!heapTrim.running && config.NODE_ENV === 'production')
    logger.info(
      { reason: heapTrim.reason },
      'heap trim off: the memory a load adds to the young generation is given back only when V8 next collects in full',
    );
  // Before the line that says it listens: a signal sent on reading that line must find the handlers.
  handleShutdownSignals({
    logger,
    readyDelayMs: config.SHUTDOWN_READY_DELAY_MS,
    deadlineMs: config.SHUTDOWN_DEADLINE_MS,
    async stop() {
      // No collection of its own stops the process while the last operations drain.
      if (heapTrim.running) heapTrim.stop();
      gateway.drain();
      await sleep(config.SHUTDOWN_READY_DELAY_MS);
      await gateway.stop(config.SHUTDOWN_DEADLINE_MS);
      await client.close();
      await sandbox?.close();
      // The spans of the last operations, still in the batch processor.
      if (tracing && !(await tracing.shutdown())) logger.warn('tracing: the last spans did not reach the collector in time');
    },
  });

  logger.info({ url, graphql: `${url}/graphql`, metrics: `${url}/metrics` }, 'gateway listening');
  if (sandbox) welcome(url, sandbox);
}

main().catch((error: unknown) => {
  // What the operator fixes by configuration is one clear message; anything else keeps its stack.
  console.error(error instanceof ConfigError || error instanceof StartUpFailure ? error.message : error);
  process.exit(1);
});
