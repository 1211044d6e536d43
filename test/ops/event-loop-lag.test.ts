import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { eventLoopLagMetrics } from '../../src/ops/event-loop-lag.js';
import { parseMetrics, valueOf } from './prometheus.js';

// nodejs_eventloop_lag_*: sampled once the process serves a request, and a stall of the loop reads as how late
// the loop was. (That an idle gateway samples nothing is test/ops/main-process.test.ts's idle test.)

/** Keeps the loop busy for `ms`: what a slow synchronous handler does to every other callback. */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/**
 * `run` with the series on a registry of their own (sampling stopping after `activeWindowMs` quiet, by default
 * the gateway's 2 s) and a server to send requests to; both stopped after.
 */
async function withSampling(
  run: (request: () => Promise<void>, registry: Registry) => Promise<void>,
  options?: { activeWindowMs: number },
): Promise<void> {
  const registry = new Registry();
  const stop = eventLoopLagMetrics(registry, options);
  const server = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  try {
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await run(async () => expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok'), registry);
  } finally {
    server.close();
    stop();
  }
}

describe('the event-loop delay series', () => {
  it('sample once a request comes in, and read a 300 ms stall as 200 ms or more late (the 100 ms sampling step taken off)', () =>
    withSampling(async (request, registry) => {
      await request();
      // A few samples of a free loop, then the stall, then one sample after it.
      await sleep(250);
      stall(300);
      await sleep(150);
      const samples = parseMetrics(await registry.metrics());
      expect(valueOf(samples, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.2);
      expect(valueOf(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0.2);
      // A free loop was on time: less the sampling step, it reads close to nothing, not 100 ms.
      expect(valueOf(samples, 'nodejs_eventloop_lag_min_seconds')).toBeLessThan(0.05);
      // Read and reset: the next scrape describes only what came after.
      expect(valueOf(parseMetrics(await registry.metrics()), 'nodejs_eventloop_lag_max_seconds')).toBeLessThan(0.2);
    }));

  // A window of 250 ms rather than 2 s: a quiet spell that stops sampling then takes a second, not five, and the
  // window's length plays no part in what the series read after it.
  it('do not read a quiet spell as a late loop: sampling that stopped and starts again with the next request records no gap', () =>
    withSampling(
      async (request, registry) => {
        await request();
        // Sampling stops after at most two quiet windows; the loop then idles, never late, until the next request:
        // 500 ms of it at least, which a sampler counting the quiet spell would read as 400 ms late.
        await sleep(1_000);
        await request();
        await sleep(250);
        const samples = parseMetrics(await registry.metrics());
        expect(valueOf(samples, 'nodejs_eventloop_lag_max_seconds')).toBeLessThan(0.2);
        expect(valueOf(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeLessThan(0.2);
      },
      { activeWindowMs: 250 },
    ));
});
