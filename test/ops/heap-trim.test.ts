import { channel } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLOOR_BYTES, QUIET_MS, startHeapTrim, type HeapTrim } from '../../src/ops/heap-trim.js';
import { configProblems } from '../support/config-problems.js';

// The heap trim's rule, with V8 stood in for (test/ops/heap-trim-v8.test.ts has the real one): nothing while the
// gateway allocates or in a lull shorter than HEAP_TRIM_AFTER_MS; after that long allocating next to nothing
// (probes and polls allocate little), a young collection, then one full collection in a quiet second; none while
// idle with nothing to give back, and no wake-up of its own but the minute's end.

const MB = 1024 * 1024;
const AFTER_MS = 60_000;
/** What node:http and undici announce; the trim listens to both (src/ops/activity.ts). */
const request = () => channel('http.server.request.start').publish({});
const upstreamCall = () => channel('undici:request:create').publish({});
const MINOR = [{ type: 'minor' }];
const FULL: unknown[] = [];

let trim: HeapTrim | undefined;
beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  if (trim?.running) trim.stop();
  vi.useRealTimers();
});

/**
 * A trim whose young generation holds `young.bytes` (`startBytes` at start) of which `young.used` are used, whose
 * collections are counted, and whose young collections shrink it to 2 MB (as V8 does after 5 s of low
 * allocation) unless `young.keeps` is set. `v8Collects()` stands for a collection V8 makes of its own.
 */
function started(startBytes = 4 * MB) {
  const young = { bytes: startBytes, used: MB, keeps: false, readings: 0 };
  const collect = vi.fn((options?: { type: 'minor' }) => {
    young.used = MB / 2;
    if (options?.type === 'minor' && !young.keeps) young.bytes = 2 * MB;
  });
  const listeners = new Set<() => void>();
  trim = startHeapTrim({
    afterMs: AFTER_MS,
    collect,
    youngGeneration: () => (young.readings++, { committed: young.bytes, used: young.used }),
    onCollection: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
  });
  const v8Collects = () => {
    young.used = MB;
    for (const listener of listeners) listener();
  };
  return { young, collect, v8Collects, listeners };
}

/**
 * `ms` (whole seconds) of a load: a request every second, each allocating 7 MB in a young generation grown to
 * 128 MB, which V8 collects when a 64 MB semi-space is full. Its last request comes as it ends, and the reading
 * then sees the second before it: HEAP_TRIM_AFTER_MS later to the millisecond, the young collection.
 */
function load(trimmed: { young: { bytes: number; used: number }; v8Collects: () => void }, ms: number) {
  const { young } = trimmed;
  for (let t = 0; t < ms; t += 1_000) {
    young.bytes = 128 * MB;
    request();
    if (young.used + 7 * MB > 64 * MB) trimmed.v8Collects();
    young.used += 7 * MB;
    vi.advanceTimersByTime(1_000);
  }
  request();
}

/** A trim a load of 10 s has grown, HEAP_TRIM_AFTER_MS after it: its young collection made, the full one waiting. */
function youngCollected() {
  const trimmed = started();
  load(trimmed, 10_000);
  vi.advanceTimersByTime(AFTER_MS);
  expect(trimmed.collect.mock.calls).toEqual([MINOR]);
  return trimmed;
}

/** Nothing more collected for `ms` less a millisecond from now; in that last millisecond, a young collection. */
function youngCollectionIn(collect: { mock: { calls: unknown[][] } }, ms: number) {
  const before = [...collect.mock.calls];
  vi.advanceTimersByTime(ms - 1);
  expect(collect.mock.calls).toEqual(before);
  vi.advanceTimersByTime(1);
  expect(collect.mock.calls).toEqual([...before, MINOR]);
}

/** `ms` of what every replica gets while no one uses it: a probe every 2 s, a poll every 5 s, each allocating a little. */
function probesAndPolls(young: { used: number }, ms: number) {
  for (let t = 0; t < ms; t += 1_000) {
    if (t % 2_000 === 0) request();
    if (t % 5_000 === 0) upstreamCall();
    young.used += 20 * 1024;
    vi.advanceTimersByTime(1_000);
  }
}

describe('the heap trim', () => {
  it('is off with HEAP_TRIM_AFTER_MS=0, or without --expose-gc, and says which', () => {
    expect(startHeapTrim({ afterMs: 0, collect: vi.fn() })).toEqual({ running: false, reason: 'HEAP_TRIM_AFTER_MS=0' });
    expect(startHeapTrim({ afterMs: AFTER_MS, collect: undefined })).toEqual({
      running: false,
      reason: expect.stringContaining('--expose-gc') as string,
    });
  });

  it('takes 0, or from 5 s (V8 shrinks after 5 s of quiet) up to what a timer can hold', () => {
    for (const ok of ['0', '5000', '60000', '2147483647']) expect(configProblems({ HEAP_TRIM_AFTER_MS: ok })).toEqual([]);
    for (const wrong of ['1000', '4999', '2147483648', '6000.5', 'six'])
      expect(configProblems({ HEAP_TRIM_AFTER_MS: wrong })).toEqual([
        expect.stringMatching(/^HEAP_TRIM_AFTER_MS must be 0 \(off\) or a whole number of milliseconds from 5000 to 2147483647/),
      ]);
  });

  it('collects nothing while traffic flows, however long', () => {
    const trimmed = started();
    const { collect } = trimmed;
    load(trimmed, 10 * AFTER_MS);
    expect(collect).not.toHaveBeenCalled();
  });

  it('leaves the young generation grown through a lull shorter than HEAP_TRIM_AFTER_MS, for the next burst', () => {
    // A burst after a lull used to find it shrunk after 6 s, and paid to grow it again (bench/RESULTS.md, 0r).
    const trimmed = started();
    const { young, collect } = trimmed;
    for (let burst = 0; burst < 5; burst++) {
      load(trimmed, 10_000);
      vi.advanceTimersByTime(AFTER_MS - 1);
    }
    expect(collect).not.toHaveBeenCalled();
    expect(young.bytes).toBe(128 * MB);
  });

  it('after HEAP_TRIM_AFTER_MS without a request or an upstream call: a young collection, then a full one in a quiet second, and stops', () => {
    const trimmed = started();
    const { collect } = trimmed;
    load(trimmed, 10_000);
    youngCollectionIn(collect, AFTER_MS);
    vi.advanceTimersByTime(QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(collect).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives back under probes, scrapes and polls that allocate little', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    probesAndPolls(young, AFTER_MS + 2 * QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
  });

  it("counts allocation at V8's rate of a load (1,000 bytes a millisecond) between two readings as the load: the minute starts again", () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(30_000);
    // Half a minute after the load, a request finds 30,000,000 bytes more: that rate over the half minute.
    young.used += 30_000_000;
    request();
    youngCollectionIn(collect, AFTER_MS);
  });

  it('keeps reading when the wall clock is set back (readings are timed on the monotonic clock)', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.setSystemTime(Date.now() - 3_600_000);
    vi.advanceTimersByTime(30_000);
    young.used += 30_000_000;
    request();
    youngCollectionIn(collect, AFTER_MS);
  });

  it('does not count allocation below that rate: the minute goes on', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(30_000);
    young.used += 30_000_000 - 1;
    request();
    vi.advanceTimersByTime(30_000);
    expect(collect.mock.calls).toEqual([MINOR]);
  });

  it("does not take a probe's few kilobytes, read moments before the minute is up, for a load", () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(AFTER_MS - 5);
    // The probe's request is read as it starts; its handler then allocates 50 KB, 5 ms before the minute's end.
    request();
    young.used += 50 * 1024;
    vi.advanceTimersByTime(5);
    expect(collect.mock.calls).toEqual([MINOR]);
  });

  it('reads the young generation again when the minute is up: allocation no request came to read starts it again', () => {
    // Messages to WebSocket subscribers, say: no request or upstream call starts for them.
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(30_000);
    young.used += 60_000_000;
    vi.advanceTimersByTime(30_000);
    expect(collect).not.toHaveBeenCalled();
    youngCollectionIn(collect, AFTER_MS);
  });

  it("counts a collection of V8's own as the load: the minute starts again", () => {
    const trimmed = started();
    const { collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(AFTER_MS / 2);
    trimmed.v8Collects();
    youngCollectionIn(collect, AFTER_MS);
  });

  it("does not wake between the load and the minute's end: no reading without a request or a call", () => {
    // A reading every 5 s of its own was the whole of an idle replica's CPU (bench/RESULTS.md, 0s).
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    const [readings, loadEnd] = [young.readings, Date.now()];
    vi.advanceTimersByTime(AFTER_MS - 1);
    expect(young.readings).toBe(readings);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersToNextTimer();
    expect(Date.now() - loadEnd).toBe(AFTER_MS);
    expect(young.readings).toBeGreaterThan(readings);
    expect(collect.mock.calls).toEqual([MINOR]);
  });

  it('reads the young generation at most once a second, however many requests and calls start', () => {
    const trimmed = started();
    const { young } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(1_000);
    const readings = young.readings;
    for (let i = 0; i < 1_000; i++) (i % 2 ? request : upstreamCall)();
    vi.advanceTimersByTime(999);
    for (let i = 0; i < 1_000; i++) request();
    expect(young.readings - readings).toBe(1);
    vi.advanceTimersByTime(1);
    request();
    expect(young.readings - readings).toBe(2);
  });

  it('while V8 keeps the young generation, tries again after another quiet minute, then makes the full collection', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    young.keeps = true;
    vi.advanceTimersByTime(AFTER_MS + AFTER_MS - 1);
    expect(collect.mock.calls).toEqual([MINOR]);
    young.keeps = false;
    vi.advanceTimersByTime(1 + QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, MINOR, FULL]);
  });

  it('does not make the waiting full collection on a young generation grown again, and owes it after that load', () => {
    const { young, collect } = youngCollected();
    // Within the quiet second, and with no request starting (events relayed to WebSocket subscribers, say).
    young.bytes = 128 * MB;
    young.used = 40 * MB;
    vi.advanceTimersByTime(QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR]);
    youngCollectionIn(collect, AFTER_MS);
    vi.advanceTimersByTime(QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, MINOR, FULL]);
  });

  it('counts the minute from the request that finds the young generation grown again, after a pause', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(AFTER_MS + QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
    // Nothing owed and no timer. Ten minutes on, something grows the young generation with no request to see it.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * AFTER_MS);
    young.bytes = 128 * MB;
    request();
    youngCollectionIn(collect, AFTER_MS);
  });

  it('counts a burst of one second after a pause from the request that found the young generation grown', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    vi.advanceTimersByTime(AFTER_MS + QUIET_MS);
    vi.advanceTimersByTime(10 * AFTER_MS);
    // The burst: its first request finds the young generation grown, its second a second later 30 MB more. Read
    // against the last trim's reading, ten minutes old, that second would not look like a load.
    young.bytes = 128 * MB;
    request();
    young.used += 30 * MB;
    vi.advanceTimersByTime(1_000);
    request();
    youngCollectionIn(collect, AFTER_MS);
  });

  it('leaves a waiting full collection to the load that grew the young generation again', () => {
    const { young, collect } = youngCollected();
    // A request finds the young generation grown within the quiet second; V8 shrinks it again by itself.
    young.bytes = 128 * MB;
    request();
    young.bytes = 2 * MB;
    vi.advanceTimersByTime(2 * QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR]);
    // The full collection comes after that load's own quiet minute.
    vi.advanceTimersByTime(AFTER_MS - QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
  });

  it('makes the full collection when V8 shrank the young generation by itself during the quiet', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    young.bytes = 2 * MB;
    young.used = MB / 2;
    vi.advanceTimersByTime(AFTER_MS + QUIET_MS);
    expect(collect.mock.calls).toEqual([FULL]);
  });

  it('holds the full collection back while requests come, and gives it up after a minute of them', () => {
    const { collect } = youngCollected();
    // A request in every second, each too light to grow the young generation: never a quiet one. Still waiting
    // at 59 s, given up at 60.
    for (let second = 1; second < 60; second++) {
      request();
      vi.advanceTimersByTime(QUIET_MS);
    }
    expect(collect.mock.calls).toEqual([MINOR]);
    expect(vi.getTimerCount()).toBe(1);
    request();
    vi.advanceTimersByTime(QUIET_MS);
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(collect.mock.calls).toEqual([MINOR]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops a waiting full collection when a new load grows the young generation again, and gives back after it', () => {
    const trimmed = youngCollected();
    const { collect } = trimmed;
    // The full collection waits for a quiet second; a load comes instead, and grows the young generation again.
    load(trimmed, 10_000);
    vi.advanceTimersByTime(QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR]);
    vi.advanceTimersByTime(AFTER_MS);
    expect(collect.mock.calls).toEqual([MINOR, MINOR, FULL]);
  });

  it('gives back what start-up left after the same quiet, without waiting for a request', () => {
    const { collect } = started(32 * MB);
    vi.advanceTimersByTime(AFTER_MS - 1);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1 + QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
  });

  it('does not wake for a request while the young generation is at the floor or under', () => {
    const { collect } = started(FLOOR_BYTES);
    request();
    upstreamCall();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(collect).not.toHaveBeenCalled();
  });

  it('keeps one timer however much traffic there is', () => {
    const { young } = started();
    young.bytes = 64 * MB;
    for (let i = 0; i < 100; i++) request();
    expect(vi.getTimerCount()).toBe(1);
  });

  it('stops for good: no collection and no timer after stop(), whatever comes', () => {
    const trimmed = started();
    const { young, collect } = trimmed;
    load(trimmed, 10_000);
    // Mid-quiet: the minute's timer is set.
    vi.advanceTimersByTime(AFTER_MS / 2);
    if (trim?.running) trim.stop();
    const readings = young.readings;
    request();
    upstreamCall();
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(collect).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
    // Nothing of it listens any more: not node's channels (asked directly, they would count another file's
    // listeners in this worker too), not V8's collections.
    expect(young.readings).toBe(readings);
    expect(trimmed.listeners.size).toBe(0);
  });

  it('stops a waiting full collection too', () => {
    const { collect } = youngCollected();
    if (trim?.running) trim.stop();
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(collect.mock.calls).toEqual([MINOR]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
