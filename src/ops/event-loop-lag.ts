import { createHistogram } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
import { busyInterval } from '../shared/busy-interval.js';
import { onActivity } from './activity.js';

// The nodejs_eventloop_lag_* series, under prom-client's names and meanings, sampled only while the gateway has
// work. prom-client's own collector keeps its delay histogram running always, and the histogram's timer was all
// an idle gateway did: ten wake-ups a second (3–5 ms of CPU per 5 s) where plain servers do nothing at all.
//
// Here the histogram samples while the process serves HTTP or calls the upstream (activity.ts), and for up to
// two windows after the last of either. A loop with nothing to do has no delay to measure: a scrape after a
// quiet spell reports zeros, and arms the sampler itself (it is a request). A loop stalled by work that is
// neither (a relay of events from Redis alone) is sampled only when a request or a poll comes along.

/** Delay between samples. prom-client's 10 ms default takes ~1,500 samples per 15 s scrape; 100 ms, ~150. */
const SAMPLE_MS = 100;
/** Without activity for a whole window (and at most two), sampling stops. */
const ACTIVE_WINDOW_MS = 2_000;

export const EVENT_LOOP_LAG_SERIES = [
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
] as const;

/**
 * Registers the series on `registry`; returns what stops the sampling for good. `activeWindowMs` is for tests,
 * which wait for sampling to stop after a quiet spell.
 */
export function eventLoopLagMetrics(registry: Registry, { activeWindowMs = ACTIVE_WINDOW_MS } = {}): () => void {
  // Sampled here rather than by monitorEventLoopDelay(): its histogram, enabled again after a pause, records the
  // whole pause as its first delay (it keeps the time of its last run), so every quiet spell between two
  // requests read as a loop seconds late. Each sample is the time since the last, from the sampler's start.
  const histogram = createHistogram();
  let sampling = false;
  let seen = false;
  let previous = 0n;
  const sampler = busyInterval(
    () => sampling,
    () => {
      const now = process.hrtime.bigint();
      histogram.record(now > previous ? now - previous : 1n);
      previous = now;
    },
    SAMPLE_MS,
  );
  const idleCheck = busyInterval(
    () => sampling,
    () => {
      if (!seen) sampling = false;
      seen = false;
    },
    activeWindowMs,
  );
  const stopListening = onActivity(() => {
    seen = true;
    if (sampling) return;
    sampling = true;
    previous = process.hrtime.bigint();
    sampler.poke();
    idleCheck.poke();
  });

  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
  // The histogram holds the time between its timer's runs, so a loop with nothing to do reads the resolution
  // itself (prom-client's series read 10 ms on an idle process): less the resolution, a value is how late the
  // loop was, as the series' names say, and reads 0 when it was never late.
  const late = (ns: number) => Math.max(0, ns / 1e6 - SAMPLE_MS) / 1e3;
  new Gauge({
    name: EVENT_LOOP_LAG_SERIES[0],
    help: 'Lag of event loop in seconds.',
    registers: [registry],
    // One collect sets every series, as prom-client's does. A registry reads all its series at once, so the
    // others are set before the first await; this one's own value is how long a callback queued now waits for
    // its turn.
    async collect() {
      const samples = histogram.count > 0;
      for (const [series, read] of percentiles) series.set(samples ? read() : 0);
      histogram.reset();
      const start = process.hrtime.bigint();
      await new Promise(setImmediate);
      this.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });

  const [, min, max, mean, stddev, p50, p90, p99] = EVENT_LOOP_LAG_SERIES;
  const percentiles = [
    [gauge(min, 'The minimum recorded event loop delay.'), () => late(histogram.min)],
    [gauge(max, 'The maximum recorded event loop delay.'), () => late(histogram.max)],
    [gauge(mean, 'The mean of the recorded event loop delays.'), () => late(histogram.mean)],
    [gauge(stddev, 'The standard deviation of the recorded event loop delays.'), () => histogram.stddev / 1e9],
    [gauge(p50, 'The 50th percentile of the recorded event loop delays.'), () => late(histogram.percentile(50))],
    [gauge(p90, 'The 90th percentile of the recorded event loop delays.'), () => late(histogram.percentile(90))],
    [gauge(p99, 'The 99th percentile of the recorded event loop delays.'), () => late(histogram.percentile(99))],
  ] as const;

  return () => {
    stopListening();
    idleCheck.close();
    sampler.close();
  };
}
