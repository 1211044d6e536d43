import { channel } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLOOR_BYTES, startHeapTrim, type HeapTrim } from '../../src/ops/heap-trim.js';

// The heap trim's rule, with V8 stood in for (test/ops/heap-trim-v8.test.ts has the real one): young collections
// only while the young generation is above the floor, started by a request or an upstream call, none while idle.

const MB = 1024 * 1024;
/** What node:http and undici announce; the trim listens to both (src/ops/activity.ts). */
const request = () => channel('http.server.request.start').publish({});
const upstreamCall = () => channel('undici:request:create').publish({});

let trim: HeapTrim | undefined;
beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  if (trim?.running) trim.stop();
  vi.useRealTimers();
});

/** A trim whose young generation is `young.bytes`, and whose collections are counted. */
function started(everyMs = 1_000) {
  const young = { bytes: 4 * MB };
  const collect = vi.fn();
  trim = startHeapTrim({ everyMs, collect, youngGenerationBytes: () => young.bytes });
  return { young, collect };
}

describe('the heap trim', () => {
  it('is off with HEAP_TRIM_INTERVAL_MS=0, or without --expose-gc, and says which', () => {
    expect(startHeapTrim({ everyMs: 0, collect: vi.fn() })).toEqual({ running: false, reason: 'HEAP_TRIM_INTERVAL_MS=0' });
    expect(startHeapTrim({ everyMs: 1_000, collect: undefined })).toEqual({
      running: false,
      reason: expect.stringContaining('--expose-gc') as string,
    });
  });

  it('asks for young collections every interval while the young generation is above the floor, then stops', () => {
    const { young, collect } = started();
    young.bytes = 128 * MB;
    upstreamCall();
    vi.advanceTimersByTime(3_000);
    expect(collect.mock.calls).toEqual([[{ type: 'minor' }], [{ type: 'minor' }], [{ type: 'minor' }]]);
    // V8 shrank it in the meantime: the next tick finds nothing to give back and the timer stops.
    young.bytes = FLOOR_BYTES;
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    young.bytes = 128 * MB;
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(3);
    // Until the next sign of work.
    request();
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(4);
  });

  it('follows the young collection in which V8 shrank the young generation with one full collection, and stops', () => {
    const { young, collect } = started();
    young.bytes = 128 * MB;
    request();
    vi.advanceTimersByTime(2_000);
    // Traffic stopped: the next young collection is the one that finds 5 s of low allocation.
    collect.mockImplementation((options?: { type: string }) => {
      if (options?.type === 'minor') young.bytes = 2 * MB;
    });
    vi.advanceTimersByTime(1_000);
    expect(collect.mock.calls).toEqual([[{ type: 'minor' }], [{ type: 'minor' }], [{ type: 'minor' }], []]);
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not wake for a request while the young generation is small', () => {
    const { collect } = started();
    request();
    upstreamCall();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
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
    if (trim?.running) trim.stop();
    request();
    vi.advanceTimersByTime(10_000);
    expect(collect).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});
