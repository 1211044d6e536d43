import { channel } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLOOR_BYTES, QUIET_MS, startHeapTrim, type HeapTrim } from '../../src/ops/heap-trim.js';
import { configProblems } from '../support/config-problems.js';

// The heap trim's rule, with V8 stood in for (test/ops/heap-trim-v8.test.ts has the real one): young collections
// only while the young generation is above the floor, started at start-up and by a request or an upstream call,
// then one full collection in a quiet second; none while idle.

const MB = 1024 * 1024;
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
 * A trim whose young generation is `young.bytes` (`startBytes` at start), whose collections are counted, and
 * whose young collections shrink it to 2 MB once `young.shrinks` is set (as V8 does after 5 s of quiet).
 */
function started(everyMs = 6_000, startBytes = 4 * MB) {
  const young = { bytes: startBytes, shrinks: false };
  const collect = vi.fn((options?: { type: 'minor' }) => {
    if (options?.type === 'minor' && young.shrinks) young.bytes = 2 * MB;
  });
  trim = startHeapTrim({ everyMs, collect, youngGenerationBytes: () => young.bytes });
  return { young, collect };
}

/** A trim after a load has grown the young generation to 128 MB and its first tick has come. */
function afterALoad({ shrinks }: { shrinks: boolean }) {
  const trimmed = started();
  trimmed.young.bytes = 128 * MB;
  trimmed.young.shrinks = shrinks;
  request();
  vi.advanceTimersByTime(6_000);
  return trimmed;
}

describe('the heap trim', () => {
  it('is off with HEAP_TRIM_INTERVAL_MS=0, or without --expose-gc, and says which', () => {
    expect(startHeapTrim({ everyMs: 0, collect: vi.fn() })).toEqual({ running: false, reason: 'HEAP_TRIM_INTERVAL_MS=0' });
    expect(startHeapTrim({ everyMs: 6_000, collect: undefined })).toEqual({
      running: false,
      reason: expect.stringContaining('--expose-gc') as string,
    });
  });

  it('takes 0, or an interval from 5 s (V8 shrinks after 5 s of quiet) up to what a timer can hold', () => {
    for (const ok of ['0', '5000', '6000', '2147483647']) expect(configProblems({ HEAP_TRIM_INTERVAL_MS: ok })).toEqual([]);
    for (const wrong of ['1000', '4999', '2147483648', '6000.5', 'six'])
      expect(configProblems({ HEAP_TRIM_INTERVAL_MS: wrong })).toEqual([
        expect.stringMatching(/^HEAP_TRIM_INTERVAL_MS must be 0 \(off\) or a whole number of milliseconds from 5000 to 2147483647/),
      ]);
  });

  it('asks for young collections every interval while the young generation is above the floor, never a full one', () => {
    const { young, collect } = started();
    young.bytes = 128 * MB;
    upstreamCall();
    vi.advanceTimersByTime(18_000);
    expect(collect.mock.calls).toEqual([MINOR, MINOR, MINOR]);
  });

  it('once V8 has shrunk it, makes one full collection in a second without activity, and stops', () => {
    const { young, collect } = afterALoad({ shrinks: false });
    young.shrinks = true;
    vi.advanceTimersByTime(6_000);
    expect(collect.mock.calls).toEqual([MINOR, MINOR]);
    vi.advanceTimersByTime(QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, MINOR, FULL]);
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('makes the full collection when V8 shrank the young generation by itself between two ticks', () => {
    const { young, collect } = afterALoad({ shrinks: false });
    young.bytes = 2 * MB;
    vi.advanceTimersByTime(6_000 + QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
  });

  it('holds the full collection back while requests come, and gives it up after a minute of them', () => {
    const { collect } = afterALoad({ shrinks: true });
    expect(collect.mock.calls).toEqual([MINOR]);
    // A request in every second: never a quiet one. Still waiting at 59 s, given up at 60.
    for (let second = 1; second < 60; second++) {
      request();
      vi.advanceTimersByTime(QUIET_MS);
    }
    expect(vi.getTimerCount()).toBe(1);
    request();
    vi.advanceTimersByTime(QUIET_MS);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(collect.mock.calls).toEqual([MINOR]);
  });

  it('drops a waiting full collection when a new load grows the young generation again, and makes one after it', () => {
    const { young, collect } = afterALoad({ shrinks: true });
    // The full collection waits for a quiet second; a load comes instead.
    young.shrinks = false;
    for (let t = 0; t < 6_000; t += 500) {
      young.bytes = 128 * MB;
      request();
      vi.advanceTimersByTime(500);
    }
    // Quiet again: nothing full while the young generation is large, one after V8 shrank it.
    vi.advanceTimersByTime(5_000);
    expect(collect.mock.calls).toEqual([MINOR, MINOR]);
    young.shrinks = true;
    vi.advanceTimersByTime(6_000 + QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, MINOR, MINOR, FULL]);
  });

  it('makes the held-back full collection in the first quiet second', () => {
    const { collect } = afterALoad({ shrinks: true });
    for (let i = 0; i < 5; i++) {
      request();
      vi.advanceTimersByTime(QUIET_MS);
    }
    expect(collect.mock.calls).toEqual([MINOR]);
    vi.advanceTimersByTime(QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
  });

  it('gives back what start-up left without waiting for a request', () => {
    const { young, collect } = started(6_000, 32 * MB);
    young.shrinks = true;
    vi.advanceTimersByTime(6_000 + QUIET_MS);
    expect(collect.mock.calls).toEqual([MINOR, FULL]);
  });

  it('does not wake for a request while the young generation is at the floor or under', () => {
    const { collect } = started(6_000, FLOOR_BYTES);
    request();
    upstreamCall();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(collect).not.toHaveBeenCalled();
  });

  it('keeps one timer however much traffic there is', () => {
    const { young } = started();
    young.bytes = 64 * MB;
    for (let i = 0; i < 100; i++) request();
    expect(vi.getTimerCount()).toBe(1);
  });

  it('stops for good: no collection and no timer after stop(), whatever comes', () => {
    const { young, collect } = started();
    young.bytes = 64 * MB;
    request();
    vi.advanceTimersByTime(6_000);
    expect(collect.mock.calls).toEqual([MINOR]);
    // Mid-load: the interval is running.
    if (trim?.running) trim.stop();
    request();
    vi.advanceTimersByTime(60_000);
    expect(collect.mock.calls).toEqual([MINOR]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops a waiting full collection too', () => {
    const { young, collect } = started();
    young.bytes = 64 * MB;
    young.shrinks = true;
    request();
    vi.advanceTimersByTime(6_000);
    if (trim?.running) trim.stop();
    vi.advanceTimersByTime(60_000);
    expect(collect.mock.calls).toEqual([MINOR]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
