import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { returnMemoryWhenQuiet } from '../../src/ops/memory-return.js';
import { parseMetrics, valueOf } from './prometheus.js';

// MEMORY_RETURN_QUIET_MS: after the heap grew, a quiet window gets a full collection and a second quiet window
// another, which give the growth back; a busy loop postpones them, a heap that did not grow never gets them.
// Windows of 150 and 100 ms rather than 60 and 6 s, a settling of 50 ms rather than 1 s, a growth of 4 MB rather
// than 16: what the test waits for is the log line or the counter, never a duration. (That the young generation
// shrinks takes V8's 5 s: bench/after-spike.ts.)

const QUIET_MS = 150;
const YOUNG_MS = 100;
const SETTLE_MS = 50;
/** Longer than a whole return takes. */
const RETURN_MS = QUIET_MS + YOUNG_MS + SETTLE_MS;
const GROWTH = 4 * 1024 * 1024;

let stop: (() => void) | undefined;
afterEach(() => stop?.());

function watched(quietMs = QUIET_MS) {
  const registry = new Registry();
  const debug: object[] = [];
  stop = returnMemoryWhenQuiet({
    quietMs,
    registry,
    logger: { debug: (fields: object) => void debug.push(fields), warn: () => expect.unreachable('gc() is there') },
    growthBytes: GROWTH,
    youngMs: YOUNG_MS,
    settleMs: SETTLE_MS,
  });
  const series = async (name: string) => valueOf(parseMetrics(await registry.metrics()), name) ?? 0;
  return {
    registry,
    debug,
    returns: () => series('reward_gateway_memory_returns_total'),
    returned: () => series('reward_gateway_memory_returned_bytes_total'),
  };
}

/** A spike's garbage: 20 MB of small objects kept across a few collections (so they reach the old generation), then dropped. */
async function spike(): Promise<void> {
  let kept: object[][] = [];
  for (let round = 0; round < 4; round++) {
    kept.push(Array.from({ length: 100_000 }, (_, i) => ({ order: `2026-11-29-${round}-${i}`, amount: i })));
    await new Promise(setImmediate);
  }
  kept = [];
}

/** 64 MB of garbage that dies young: a few scavenges, nothing kept. */
function churn(): void {
  let last: object = {};
  for (let i = 0; i < 1_000_000; i++) last = { order: `2026-11-29-${i}`, previous: i % 1000 === 0 ? null : last };
}

/** Keeps the event loop busy for `ms` in slices, as a served spike does. */
async function busyFor(ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const slice = performance.now() + 5;
    while (performance.now() < slice);
    await new Promise(setImmediate);
  }
}

/** Waits for the return's log lines, which cost the loop nothing to look at (a scrape would break its quiet). */
async function untilReturned(memory: { debug: object[] }, count: number): Promise<void> {
  while (memory.debug.length < count) await sleep(SETTLE_MS);
}

describe('returning memory after a spike (MEMORY_RETURN_QUIET_MS)', () => {
  it('gives the growth back once the process has been quiet after the heap grew', async () => {
    const memory = watched();
    const before = getHeapStatistics().total_heap_size;
    await spike();
    const grown = getHeapStatistics().total_heap_size;
    expect(grown - before).toBeGreaterThan(GROWTH);
    await untilReturned(memory, 1);
    expect(await memory.returns()).toBe(1);
    expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - GROWTH);
    expect(await memory.returned()).toBeGreaterThan(GROWTH);
    expect(memory.debug).toEqual([
      expect.objectContaining({ heapBeforeMb: expect.any(Number), heapAfterMb: expect.any(Number), pauseMs: expect.any(Number) }),
    ]);
    // Garbage that dies young makes collections but no growth: quiet windows after it get no return.
    churn();
    await sleep(2 * RETURN_MS);
    expect(await memory.returns()).toBe(1);
  });

  it('waits while the event loop stays busy, and returns once it is quiet', async () => {
    const memory = watched();
    await spike();
    await busyFor(2 * RETURN_MS);
    expect(await memory.returns()).toBe(0);
    await untilReturned(memory, 1);
    expect(await memory.returns()).toBe(1);
  });

  it('returns again after a second spike', async () => {
    const memory = watched();
    await spike();
    await untilReturned(memory, 1);
    await spike();
    await untilReturned(memory, 2);
    expect(await memory.returns()).toBe(2);
  });

  it('is off at 0: nothing registered, so the series are absent from /metrics', () => {
    const memory = watched(0);
    expect(memory.registry.getSingleMetric('reward_gateway_memory_returns_total')).toBeUndefined();
  });
});
