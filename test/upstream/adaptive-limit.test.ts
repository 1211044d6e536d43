import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdaptiveLimit } from '../../src/upstream/adaptive-limit.js';
import { UpstreamBudget, memoryCeiling, type Grant } from '../../src/upstream/budget.js';
import { TokenBucket } from '../../src/upstream/token-bucket.js';
import type { Ceiling, CeilingAnswer } from '../../src/upstream/types.js';

// The adaptive limit and the budget in simulated time: a clock the test moves one millisecond at a time, an
// upstream that is the sandbox's capacity fault (the same token bucket), so convergence is shown exactly and
// no assertion depends on how fast this machine runs.

/** 50 requests a second want to go out for `seconds`; a 429 is retried once its answer arrives (20 ms later). */
function simulate(capacity: { rate: number; burst: number }, seconds: number) {
  let now = 0;
  const clock = () => now;
  const upstream = new TokenBucket(capacity, clock);
  const limit = new AdaptiveLimit(clock);
  const perSecond: { sent: number; refused: number }[] = [];
  const inFlight: { at: number; sentAt: number; status: number }[] = [];
  let queue = 0;
  for (now = 0; now < seconds * 1000; now++) {
    if (now % 20 === 0) queue++;
    const second = (perSecond[Math.floor(now / 1000)] ??= { sent: 0, refused: 0 });
    while (queue > 0 && limit.take() === 0) {
      queue--;
      const accepted = upstream.take() === 0;
      second.sent++;
      if (!accepted) second.refused++;
      inFlight.push({ at: now + 20, sentAt: now, status: accepted ? 200 : 429 });
    }
    while (inFlight.length > 0 && inFlight[0]!.at <= now) {
      const answer = inFlight.shift()!;
      limit.answered(answer.sentAt, answer.status, null);
      if (answer.status === 429) queue++;
    }
  }
  return { perSecond, limit: limit.limit };
}

describe('the adaptive limit', () => {
  it('has no limit until the upstream first says "too many"', () => {
    const limit = new AdaptiveLimit(() => 0);
    for (let i = 0; i < 1000; i++) expect(limit.take()).toBe(0);
    expect(limit.limit).toBeNull();
  });

  it('converges under a capacity of 10/s: at most 5 % 429s after the first 10 s, and close to the capacity used', () => {
    for (const burst of [1, 10, 20]) {
      const { perSecond, limit } = simulate({ rate: 10, burst }, 120);
      const after = perSecond.slice(10);
      const sent = after.reduce((n, s) => n + s.sent, 0);
      const refused = after.reduce((n, s) => n + s.refused, 0);
      expect(refused / sent, `burst ${burst}`).toBeLessThanOrEqual(0.05);
      // "Just below": at least 80 % of what the upstream accepts is used.
      expect((sent - refused) / after.length, `burst ${burst}`).toBeGreaterThanOrEqual(8);
      expect(limit).toBeGreaterThan(5);
      expect(limit).toBeLessThan(15);
    }
  });

  it('cuts once for an overshoot, not once per answer in flight', () => {
    let now = 0;
    const limit = new AdaptiveLimit(() => now);
    for (let i = 0; i < 20; i++) limit.answered(0, 200, null);
    now = 100;
    for (let i = 0; i < 10; i++) limit.answered(50, 429, null);
    expect(limit.cuts).toBe(1);
    now = 200;
    limit.answered(150, 429, null);
    expect(limit.cuts).toBe(2);
  });

  it('counts a Retry-After on any answer as "too many"', () => {
    const limit = new AdaptiveLimit(() => 0);
    limit.answered(0, 503, 2);
    expect(limit.limit).not.toBeNull();
  });
});

describe('the budget', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('serves waiting writes before polls before reads, whatever their order of arrival', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const budget = new UpstreamBudget({ ceiling: memoryCeiling({ rate: 1, burst: 1 }), adaptive: new AdaptiveLimit() });
    expect((await budget.take('read', 'key:a', 60_000, {})).granted).toBe(true);
    const order: string[] = [];
    const waits = (['read', 'poll', 'write', 'read', 'write'] as const).map((p) =>
      Promise.resolve(budget.take(p, 'key:a', 60_000, {})).then(() => order.push(p)),
    );
    expect(budget.waiting()).toEqual({ write: 2, poll: 1, read: 2 });
    await vi.advanceTimersByTimeAsync(6_000);
    await Promise.all(waits);
    expect(order).toEqual(['write', 'write', 'poll', 'read', 'read']);
  });

  it('refuses a read at once when its turn is further away than it may wait, and never a write', async () => {
    const now = 0;
    const budget = new UpstreamBudget({
      ceiling: memoryCeiling({ rate: 1, burst: 1 }, () => now),
      adaptive: new AdaptiveLimit(() => now),
      now: () => now,
    });
    expect((await budget.take('read', 'key:a', 100, {})).granted).toBe(true);
    const refused = await budget.take('read', 'key:a', 100, {});
    expect(refused).toMatchObject({ granted: false, reason: 'backlog' });
    expect(refused.granted === false && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps the last token of a bucket from reads, for a write', async () => {
    const now = 0;
    const budget = new UpstreamBudget({
      ceiling: memoryCeiling({ rate: 0.001, burst: 5 }, () => now),
      adaptive: new AdaptiveLimit(() => now),
      now: () => now,
    });
    const reads = await Promise.all([1, 2, 3, 4, 5].map(() => budget.take('read', 'key:a', 0, {})));
    expect(reads.filter((r) => r.granted)).toHaveLength(4);
    expect((await budget.take('write', 'key:a', 0, {})).granted).toBe(true);
  });

  it('lets the waiting keys of one priority take turns: a key queueing many reads gets one token in two while another waits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const budget = new UpstreamBudget({ ceiling: memoryCeiling({ rate: 1, burst: 1 }), adaptive: new AdaptiveLimit() });
    expect((await budget.take('read', 'key:flood', 60_000, {})).granted).toBe(true);
    const order: string[] = [];
    const wait = (lane: string) => Promise.resolve(budget.take('read', lane, 60_000, {})).then(() => order.push(lane));
    const waits = [...Array.from({ length: 6 }, () => wait('key:flood')), wait('key:other'), wait('key:other')];
    await vi.advanceTimersByTimeAsync(9_000);
    await Promise.all(waits);
    // Served in turn from the first token after the other key queued: its two reads come 2nd and 4th, not 7th and 8th.
    expect(order.slice(0, 4)).toEqual(['key:flood', 'key:other', 'key:flood', 'key:other']);
  });

  it('refuses early only by the turns a newcomer really waits: a read of a quiet key is not refused behind a flood of another', async () => {
    const now = 0;
    const budget = new UpstreamBudget({
      ceiling: memoryCeiling({ rate: 1, burst: 1 }, () => now),
      adaptive: new AdaptiveLimit(() => now),
      now: () => now,
    });
    const gone = new AbortController();
    const stops = { own: gone.signal };
    expect((await budget.take('read', 'key:flood', 60_000, stops)).granted).toBe(true);
    const waits = Array.from({ length: 20 }, () => budget.take('read', 'key:flood', 60_000, stops));
    expect(budget.waiting().read).toBe(20);
    // Twenty reads of the flood wait; the quiet key's one read is second in turn, so a 2.5 s wait is enough.
    waits.push(budget.take('read', 'key:quiet', 2_500, stops));
    expect(waits.at(-1)).toBeInstanceOf(Promise);
    expect(await budget.take('read', 'key:flood', 2_500, stops)).toMatchObject({ granted: false, reason: 'backlog' });
    gone.abort();
    for (const wait of await Promise.all(waits)) expect(wait).toMatchObject({ granted: false, reason: 'aborted' });
    expect(budget.waiting().read).toBe(0);
  });

  it('gives a refunded token to the next waiter, and an idle bucket refills to its burst, never beyond', async () => {
    let now = 0;
    const ceiling = memoryCeiling({ rate: 1, burst: 2 }, () => now);
    const budget = new UpstreamBudget({ ceiling, adaptive: new AdaptiveLimit(() => now), now: () => now });
    expect((await budget.take('write', 'key:a', 0, {})).granted).toBe(true);
    expect((await budget.take('write', 'key:a', 0, {})).granted).toBe(true);
    expect(ceiling.tokens()).toBe(0);
    budget.refund();
    expect(ceiling.tokens()).toBe(1);
    expect((await budget.take('write', 'key:a', 0, {})).granted).toBe(true);
    now = 10_000;
    budget.refund();
    expect(ceiling.tokens()).toBe(2);
  });
});

describe('a stop that comes while the shared ceiling is asked', () => {
  it('ends the wait that follows at once, as aborted, instead of leaving it on a signal that already fired', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      // Redis's answer (cluster/upstream-budget.ts) is a promise: the stop can come before it does.
      let answer!: (a: CeilingAnswer) => void;
      const ceiling: Ceiling = {
        limits: { rate: 1, burst: 1 },
        take: () => new Promise<CeilingAnswer>((resolve) => (answer = resolve)),
        refund: () => undefined,
        tokens: () => null,
      };
      const budget = new UpstreamBudget({ ceiling, adaptive: new AdaptiveLimit() });
      const stop = new AbortController();
      let settled: Grant | undefined;
      void Promise.resolve(budget.take('write', 'key:a', 60_000, { own: stop.signal })).then((grant) => (settled = grant));
      stop.abort();
      answer({ granted: false, waitMs: 1_000 });
      await vi.advanceTimersByTimeAsync(10);
      expect(settled).toMatchObject({ granted: false, reason: 'aborted' });
      expect(budget.waiting()).toEqual({ write: 0, poll: 0, read: 0 });
    } finally {
      vi.useRealTimers();
    }
  });
});
