import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { returnMemoryWhenQuiet } from '../../src/ops/memory-return.js';
import { parseMetrics, valueOf } from './prometheus.js';

// MEMORY_RETURN_QUIET_MS: after the heap grew, a quiet spell gets two full collections a quiet window apart,
// which give the growth back; a busy loop postpones them, a heap that did not grow never gets them. Windows of
// 50 and 100 ms rather than 1 and 6 s, and a growth of 4 MB rather than 16: what the test waits for is the
// counter, never a duration. (That the young generation shrinks takes V8's 5 s: bench/after-spike.ts.)

const SHORT_MS = 50;
const WINDOW_MS = 100;
const GROWTH = 4 * 1024 * 1024;

let stop: (() => void) | undefined;
afterEach(() => stop?.());

function watched(quietMs = WINDOW_MS) {
  const registry = new Registry();
  const debug: object[] = [];
  stop = returnMemoryWhenQuiet({
    quietMs,
    registry,
    logger: { debug: (fields: object) => void debug.push(fields) },
    growthBytes: GROWTH,
    shortMs: SHORT_MS,
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

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await sleep(WINDOW_MS / 3);
}

describe('returning memory after a spike (MEMORY_RETURN_QUIET_MS)', () => {
  it('gives the growth back in quiet spells after the heap grew', async () => {
    const memory = watched();
    const before = getHeapStatistics().total_heap_size;
    await spike();
    const grown = getHeapStatistics().total_heap_size;
    expect(grown - before).toBeGreaterThan(GROWTH);
    await until(async () => memory.debug.length === 1);
    expect(await memory.returns()).toBe(1);
    expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - GROWTH);
    expect(await memory.returned()).toBeGreaterThan(GROWTH);
    expect(memory.debug).toEqual([
      expect.objectContaining({ heapBeforeMb: expect.any(Number), heapAfterMb: expect.any(Number), pauseMs: expect.any(Number) }),
    ]);
    // Garbage that dies young makes collections but no growth: quiet windows after it get no return.
    churn();
    await sleep(3 * (SHORT_MS + WINDOW_MS));
    expect(await memory.returns()).toBe(1);
  });

  it('waits while the event loop stays busy, and returns once it is quiet', async () => {
    const memory = watched();
    await spike();
    await busyFor(3 * (SHORT_MS + WINDOW_MS));
    expect(await memory.returns()).toBe(0);
    await until(async () => (await memory.returns()) === 1);
  });

  it('runs again after a second spike, and never without one', async () => {
    const memory = watched();
    await spike();
    await until(async () => (await memory.returns()) === 1);
    await spike();
    await until(async () => (await memory.returns()) === 2);
  });

  it('is off at 0', async () => {
    const memory = watched(0);
    await spike();
    await sleep(2 * (SHORT_MS + WINDOW_MS));
    // Not even registered: the series' absence on /metrics says the return is off.
    expect(memory.registry.getSingleMetric('reward_gateway_memory_returns_total')).toBeUndefined();
    expect(memory.debug).toEqual([]);
  });
});
