import fc from 'fast-check';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Bulkhead, LEND_QUIET_MS } from '../../src/upstream/bulkhead.js';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { abortedFailure } from '../../src/upstream/failures.js';
import { isAmbiguous, parseRetryAfter, pause, retryDelayMs } from '../../src/upstream/retry.js';
import { watch, watchers, type Stops } from '../../src/upstream/stops.js';

const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, budgetMs: 10_000 };

describe('retry delays', () => {
  it('use full jitter under an exponential ceiling capped at maxDelayMs', () => {
    const top = () => 0.999_999;
    expect(retryDelayMs(policy, 1, null, 10_000, top)).toBe(99);
    expect(retryDelayMs(policy, 2, null, 10_000, top)).toBe(199);
    expect(retryDelayMs(policy, 3, null, 10_000, top)).toBe(399);
    expect(retryDelayMs({ ...policy, maxAttempts: 10 }, 6, null, 10_000, top)).toBe(999);
    expect(retryDelayMs(policy, 3, null, 10_000, () => 0)).toBe(0);
  });

  it('stop when the attempts are used up', () => {
    expect(retryDelayMs(policy, 4, null, 10_000, () => 0)).toBeNull();
  });

  it('honour Retry-After as a floor, even above maxDelayMs', () => {
    expect(retryDelayMs(policy, 1, 3, 10_000, () => 0.5)).toBe(3_000);
  });

  it('stop when the wait would not fit in what is left of the budget', () => {
    expect(retryDelayMs(policy, 1, 3, 2_999, () => 0)).toBeNull();
    expect(retryDelayMs(policy, 2, null, 100, () => 0.999)).toBeNull();
  });

  it('read Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(['2', '5'])).toBe(2);
    const now = Date.parse('2026-05-01T10:00:00Z');
    expect(parseRetryAfter('Fri, 01 May 2026 10:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Fri, 01 May 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});

describe('aborts', () => {
  it('are an unclear outcome once the request had gone out (shutdown deadline), a clear one before', () => {
    expect(isAmbiguous(abortedFailure('POST /campaign', true))).toBe(true);
    expect(isAmbiguous(abortedFailure('POST /campaign'))).toBe(false);
  });
});

describe('bulkhead', () => {
  it('admits up to N, queues the rest in order, and hands slots over on release', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 2, laneShare: 1, maxQueued: 10 });
    const a = await bulkhead.acquire('k', 1_000);
    const b = await bulkhead.acquire('k', 1_000);
    expect(a.admitted && b.admitted).toBe(true);
    const order: string[] = [];
    const c = bulkhead.acquire('k', 1_000).then((r) => (order.push('c'), r));
    const d = bulkhead.acquire('k', 1_000).then((r) => (order.push('d'), r));
    expect(bulkhead.inFlight).toBe(2);
    if (a.admitted) a.release();
    if (a.admitted) a.release(); // a second release must not free another slot
    const cr = await c;
    expect(order).toEqual(['c']);
    expect(bulkhead.inFlight).toBe(2);
    if (b.admitted) b.release();
    const dr = await d;
    expect(order).toEqual(['c', 'd']);
    if (cr.admitted) cr.release();
    if (dr.admitted) dr.release();
    expect(bulkhead.inFlight).toBe(0);
  });

  it('gives up after the queue wait, and at once on abort', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 1, laneShare: 1, maxQueued: 10 });
    const held = await bulkhead.acquire('k', 0);
    expect(await bulkhead.acquire('k', 5)).toEqual({ admitted: false, reason: 'timeout' });
    const controller = new AbortController();
    const waiting = bulkhead.acquire('k', 60_000, { own: controller.signal });
    controller.abort();
    expect(await waiting).toEqual({ admitted: false, reason: 'aborted' });
    if (held.admitted) held.release();
    expect(bulkhead.inFlight).toBe(0);
  });

  it('refuses at once, without waiting, when the queue is full', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 1, laneShare: 1, maxQueued: 2 });
    const held = await bulkhead.acquire('k', 0);
    const waiting = [bulkhead.acquire('k', 60_000), bulkhead.acquire('k', 60_000)];
    expect(await bulkhead.acquire('k', 60_000)).toEqual({ admitted: false, reason: 'full' });
    if (held.admitted) held.release();
    for (const w of waiting) {
      const r = await w;
      if (r.admitted) r.release();
    }
    expect(bulkhead.inFlight).toBe(0);
    expect(bulkhead.queued).toBe(0);
  });

  it('keeps one lane to its share beside another, and to its share of the queue; other lanes are served in turn', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 4, laneShare: 0.5, maxQueued: 8 });
    expect(await bulkhead.acquire('victim', 0)).toMatchObject({ admitted: true });
    const flood = await Promise.all([bulkhead.acquire('flood', 0), bulkhead.acquire('flood', 0)]);
    expect(flood.every((a) => a.admitted)).toBe(true);
    // The flooding lane is at its share beside another lane: it waits although a slot is free...
    const third = bulkhead.acquire('flood', 60_000);
    // ...which the other lane gets at once.
    expect((await bulkhead.acquire('victim', 0)).admitted).toBe(true);
    const queued = [1, 2, 3].map(() => bulkhead.acquire('flood', 60_000));
    // Its queue share (4 of 8) is used up: a fifth waiter is refused, another lane may still queue.
    expect(await bulkhead.acquire('flood', 60_000)).toEqual({ admitted: false, reason: 'full' });
    expect(bulkhead.queued).toBe(4);
    const first = flood[0]!;
    if (first.admitted) first.release();
    const admitted = await third;
    expect(admitted.admitted).toBe(true);
    expect(bulkhead.inFlight).toBe(4);
    for (const w of queued) void w.then((r) => r.admitted && r.release());
  });

  it('lends a lane alone the slots nobody uses, up to half of those beyond its share; another lane still finds one at once', async () => {
    let now = 0;
    const bulkhead = new Bulkhead({ maxInFlight: 128, laneShare: 0.5, maxQueued: 1_000, now: () => now });
    const held: (() => void)[] = [];
    for (let slot = bulkhead.tryAcquire('busy'); slot; slot = bulkhead.tryAcquire('busy')) held.push(slot.release);
    // Its 64 and half of the other 64: 32 stay free whatever it holds.
    expect(held).toHaveLength(96);
    const waiting = bulkhead.acquire('busy', 60_000);
    // Another lane finds them at once, up to its own share.
    const other: (() => void)[] = [];
    for (let i = 0; i < 32; i++) other.push((bulkhead.tryAcquire('other') as { release: () => void }).release);
    expect(bulkhead.tryAcquire('other')).toBeNull();
    const otherWaiting = bulkhead.acquire('other', 60_000);
    // A slot the busy lane frees goes to the lane under its share, though the busy lane's waiter came first.
    held.pop()!();
    const admitted = await otherWaiting;
    expect(admitted.admitted).toBe(true);
    // The other lane is done. Beside it a moment ago, the busy lane is back to its share...
    for (const release of other) release();
    if (admitted.admitted) admitted.release();
    while (held.length > 64) held.pop()!();
    expect(bulkhead.queued).toBe(1);
    expect(bulkhead.inFlight).toBe(64);
    // ...and alone again once the other lane has been quiet for LEND_QUIET_MS: it borrows at its next release.
    now += LEND_QUIET_MS;
    held.pop()!();
    expect((await waiting).admitted).toBe(true);
    expect(bulkhead.tryAcquire('busy')).not.toBeNull();
  });

  it('keeps its rules under any interleaving of lanes taking, waiting for and freeing slots (model)', async () => {
    type Step = { lane: number; take: boolean; pick: number };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(0.25, 0.5, 0.75, 1),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ lane: fc.nat(), take: fc.boolean(), pick: fc.nat() }), { minLength: 1, maxLength: 80 }),
        async (maxInFlight, laneShare, laneCount, steps: Step[]) => {
          // The clock stands still: a lane that had work once keeps the others from borrowing for the whole run.
          const bulkhead = new Bulkhead({ maxInFlight, laneShare, maxQueued: 1_000, now: () => 0 });
          const share = bulkhead.laneMaxInFlight;
          const lanes = ['a', 'b', 'c'].slice(0, laneCount);
          const held: (() => void)[][] = lanes.map(() => []);
          const waiting = lanes.map(() => 0);
          const everBusy = new Set<number>();
          // Once another lane has had work, a lane borrows no more: what it holds over its share can only shrink.
          const ceiling: (number | null)[] = lanes.map(() => null);
          for (const step of steps) {
            const lane = step.lane % laneCount;
            if (step.take) {
              everBusy.add(lane);
              waiting[lane]!++;
              void bulkhead.acquire(lanes[lane]!, 60_000).then((admission) => {
                waiting[lane]!--;
                if (admission.admitted) held[lane]!.push(admission.release);
              });
            } else {
              const slots = held[lane]!;
              if (slots.length > 0) slots.splice(step.pick % slots.length, 1)[0]!();
            }
            // Admissions settle in microtasks.
            await new Promise((resolve) => setImmediate(resolve));
            const holding = held.map((slots) => slots.length);
            const free = maxInFlight - holding.reduce((a, b) => a + b, 0);
            expect(free).toBeGreaterThanOrEqual(0);
            expect(bulkhead.inFlight).toBe(maxInFlight - free);
            for (const [i, count] of holding.entries()) {
              const alone = [...everBusy].every((other) => other === i);
              // Never more than its share and half of the rest...
              expect(count).toBeLessThanOrEqual(share + Math.floor((maxInFlight - share) / 2));
              // ...and, beside another lane, never more than it already held.
              if (!alone) {
                const cap = ceiling[i] ?? Math.max(share, holding[i]!);
                expect(count).toBeLessThanOrEqual(cap);
                ceiling[i] = Math.max(share, Math.min(cap, count));
              }
              if (waiting[i]! === 0) continue;
              // A lane under its share never waits beside a free slot...
              if (count < share) expect(free).toBe(0);
              // ...nor, alone, one that may borrow: a slot stays free only as the reserve of what it has borrowed.
              else if (alone) expect(free - 1).toBeLessThan(count + 1 - share);
            }
          }
          // Every waiter is let in as the slots free, so none is left with its timer.
          while (waiting.some((n) => n > 0) || held.some((slots) => slots.length > 0)) {
            for (const slots of held) for (const release of slots.splice(0)) release();
            await new Promise((resolve) => setImmediate(resolve));
          }
          expect(bulkhead.inFlight).toBe(0);
          expect(bulkhead.queued).toBe(0);
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    );
  });

  it('hands a free slot over synchronously, within the lane share; a freed slot goes to a waiter first', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 2, laneShare: 0.5, maxQueued: 8 });
    const first = bulkhead.tryAcquire('a');
    expect(first?.admitted).toBe(true);
    // At its share: no slot now, though one is free; another lane takes it.
    expect(bulkhead.tryAcquire('a')).toBeNull();
    const waiting = bulkhead.acquire('a', 60_000);
    first!.release();
    // The freed slot went to the waiter at once: the lane is at its share again.
    expect(bulkhead.tryAcquire('a')).toBeNull();
    const admitted = await waiting;
    expect(admitted.admitted).toBe(true);
    expect(bulkhead.tryAcquire('b')?.admitted).toBe(true);
    expect(bulkhead.tryAcquire('c')).toBeNull();
    expect(bulkhead.inFlight).toBe(2);
  });

  it('queues any number of waiters while its lane has never made one wait in vain', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 1, laneShare: 1, maxQueued: 10_000 });
    const held = bulkhead.tryAcquire('k')!;
    const waiting = Array.from({ length: 5_000 }, () => bulkhead.acquire('k', 60_000));
    expect(bulkhead.queued).toBe(5_000);
    held.release();
    for (const w of waiting) {
      const r = await w;
      if (r.admitted) r.release();
    }
    expect(bulkhead.queued).toBe(0);
  });

  it('refuses at once what its lane has shown it cannot serve in time, and relaxes as waiters get through', async () => {
    let now = 0;
    const bulkhead = new Bulkhead({ maxInFlight: 1, laneShare: 1, maxQueued: 1_000, now: () => now });
    const held = bulkhead.tryAcquire('k')!;
    // Nothing known yet: queued. No slot frees within 20 ms, even for the first in line.
    expect(await Promise.all([1, 2, 3].map(() => bulkhead.acquire('k', 20)))).toEqual([1, 2, 3].map(() => ({ admitted: false, reason: 'timeout' })));
    // The lane drains at 20 ms or more per waiter ahead: a caller that may wait 50 ms is queued first and
    // second in line, refused at once third.
    const first = bulkhead.acquire('k', 50);
    const second = bulkhead.acquire('k', 50);
    expect(await bulkhead.acquire('k', 50)).toEqual({ admitted: false, reason: 'backlog', expectedWaitMs: 60 });
    // The first gets through after 4 ms: the estimate drops a step (20 → 18.4), not all the way.
    now += 4;
    held.release();
    const admitted = await first;
    expect(await bulkhead.acquire('k', 36)).toEqual({ admitted: false, reason: 'backlog', expectedWaitMs: 37 });
    if (admitted.admitted) admitted.release();
    const last = await second;
    if (last.admitted) last.release();
    expect(bulkhead.queued).toBe(0);
  });

  it("judges each lane by its own queue: one lane's slow backlog does not refuse another", async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 2, laneShare: 0.5, maxQueued: 1_000 });
    const flood = bulkhead.tryAcquire('flood')!;
    const victim = bulkhead.tryAcquire('victim')!;
    expect(await bulkhead.acquire('flood', 20)).toEqual({ admitted: false, reason: 'timeout' });
    expect(await bulkhead.acquire('flood', 10)).toEqual({ admitted: false, reason: 'backlog', expectedWaitMs: 20 });
    // The victim's lane has shown nothing slow: it queues behind the same full bulkhead and gets the next slot.
    const queued = bulkhead.acquire('victim', 10);
    expect(bulkhead.queued).toBe(1);
    victim.release();
    expect((await queued).admitted).toBe(true);
    flood.release();
  });

  it('lets 50,000 waiters time out, each unlinking its own entry', async () => {
    // Removal is O(1) (a linked list): with an array and splice this took seconds and blocked the event loop.
    const bulkhead = new Bulkhead({ maxInFlight: 1, laneShare: 1, maxQueued: 50_000 });
    const held = await bulkhead.acquire('k', 0);
    const waits = Array.from({ length: 50_000 }, (_, i) => bulkhead.acquire('k', 10 + (i % 7)));
    expect(bulkhead.queued).toBe(50_000);
    expect((await Promise.all(waits)).every((r) => !r.admitted && r.reason === 'timeout')).toBe(true);
    expect(bulkhead.queued).toBe(0);
    if (held.admitted) held.release();
    expect(bulkhead.inFlight).toBe(0);
  });
});

describe('one stop signal ending several waits', () => {
  it('a queued waiter admitted by the stop of the exchange ahead of it is not stopped again, and nothing throws', async () => {
    const bulkhead = new Bulkhead({ maxInFlight: 1, laneShare: 1, maxQueued: 10 });
    const stop = new AbortController();
    const stops: Stops = { own: stop.signal };
    const held = bulkhead.tryAcquire('k');
    if (!held) throw new Error('no slot');
    // The exchange on the wire: stopping it frees its slot at once, as undici's abort does.
    watch(stops, { stop: () => held.release() });
    const queued = bulkhead.acquire('k', 60_000, stops);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      // Synchronously: the first wait's release admits the queued waiter, which the same stop reaches next.
      expect(() => stop.abort()).not.toThrow();
      const result = await queued;
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      expect(result.admitted).toBe(true);
      if (result.admitted) result.release();
      expect(bulkhead.inFlight).toBe(0);
      expect(bulkhead.queued).toBe(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a backoff pause ended by its own signal lets go of the gateway-wide one too', async () => {
    const own = new AbortController();
    const scope = new AbortController();
    const stops: Stops = { own: own.signal, scope: scope.signal };
    const paused = pause(60_000, stops);
    expect(watchers(scope.signal)).toBe(1);
    own.abort();
    expect(await paused).toBe(false);
    // The scope signal lives as long as the process: a wait left on it would never be collected.
    expect(watchers(scope.signal)).toBe(0);
  });
});

describe('a stop reaching an exchange on the wire and a call queued behind it', () => {
  it('ends both as aborted, through the real client and pool', async () => {
    // An upstream that takes requests and never answers; `arrived` tells when the first is on the wire.
    let arrived!: () => void;
    const onWire = new Promise<void>((resolve) => (arrived = resolve));
    const server = createServer(() => arrived());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/papi/v1`;
    const client = createUpstreamClient({ baseUrl: base, token: 'policy-test-token', maxInFlight: 1, laneShare: 1, retry: { maxAttempts: 1 } });
    const stop = new AbortController();
    const scoped = client.inScope({ lane: 'key:a', signal: stop.signal });
    try {
      const first = scoped.getFunds().catch((error: unknown) => error);
      await onWire;
      const second = scoped.getFunds().catch((error: unknown) => error);
      stop.abort();
      const [a, b] = await Promise.all([first, second]);
      expect(a).toMatchObject({ kind: 'aborted' });
      expect(b).toMatchObject({ kind: 'aborted' });
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
