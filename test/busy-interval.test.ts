import { afterEach, describe, expect, it, vi } from 'vitest';
import { busyInterval } from '../src/shared/busy-interval.js';

// A loop that runs only while it has work: no timer at all while idle, started by a poke, stopped by the first
// tick that finds nothing to do.

describe('busyInterval', () => {
  afterEach(() => vi.useRealTimers());

  it('ticks only while busy: a poke with nothing to do starts nothing, the first idle tick stops it, a poke restarts it', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let work = 0;
    let ticks = 0;
    const loop = busyInterval(
      () => work > 0,
      () => void (ticks += 1),
      100,
    );

    loop.poke();
    expect(vi.getTimerCount()).toBe(0);

    work = 1;
    loop.poke();
    loop.poke();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(300);
    expect(ticks).toBe(3);

    work = 0;
    vi.advanceTimersByTime(100);
    expect(ticks).toBe(3);
    expect(vi.getTimerCount()).toBe(0);

    work = 1;
    loop.poke();
    vi.advanceTimersByTime(100);
    expect(ticks).toBe(4);

    loop.close();
    expect(vi.getTimerCount()).toBe(0);
    loop.poke();
    expect(vi.getTimerCount()).toBe(0);
  });
});
