import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReadCache } from '../../src/cache/read-cache.js';

// The read cache (memory mode) against a model of one upstream object, under random interleavings of reads,
// upstream answers arriving in any order and after any delay, changes nobody tells the cache about, writes
// (a change, then the invalidation the write awaits before answering) and the passing of time. Two promises:
//   - no read answers a version that was already replaced more than CACHE_TTL_MS before the read began (an
//     answer shows the object as of its read's sending, so that is when its age starts);
//   - a read that begins after a write has answered shows that write (or later).
// The upstream reads the object when the request arrives (at its sending), whatever the answer's delay: the
// case where counting age from the answer's arrival serves a missed change past the TTL. Time is a virtual
// clock (Date.now). FC_RUNS raises the number of runs for a long soak.

const TTL_MS = 5_000;
const RUNS = Number(process.env.FC_RUNS ?? 300);

type Action = { kind: 'read' } | { kind: 'answer'; pick: number } | { kind: 'change' } | { kind: 'write' } | { kind: 'tick'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'read' as const }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('answer' as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'change' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'write' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 3 * TTL_MS }) }), weight: 2 },
);

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the read cache against a model', () => {
  it('never answers a version replaced more than the TTL before the read began, and shows every answered write', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 60 }), async (actions) => {
        let now = 1_000_000;
        vi.spyOn(Date, 'now').mockImplementation(() => now);
        const cache = new ReadCache({ ttlMs: TTL_MS, staleIfErrorMs: 60_000, maxBytes: 1 << 20 });
        // The model: the object's current version, and when each version was replaced.
        let version = 0;
        const replacedAt = new Map<number, number>();
        const replace = () => {
          replacedAt.set(version, now);
          version++;
        };
        let lastWrite = -1;
        const pending: { version: number; answer: (v: { version: number }) => void }[] = [];
        const problems: string[] = [];

        for (const step of actions) {
          if (step.kind === 'read') {
            const began = now;
            const mustShow = lastWrite;
            void cache
              .read({
                group: 'g',
                field: 'v',
                fresh: false,
                // The upstream reads the object as the request arrives; the answer comes when an `answer` step says.
                fetch: () => new Promise<{ version: number }>((answer) => pending.push({ version, answer })),
              })
              .then((got) => {
                const shown = got.value.version;
                const replaced = replacedAt.get(shown);
                if (replaced !== undefined && replaced < began - TTL_MS) {
                  problems.push(`a read at ${began} answered version ${shown}, replaced at ${replaced} (TTL ${TTL_MS})`);
                }
                if (shown < mustShow) problems.push(`a read after the write of version ${mustShow} answered version ${shown}`);
              });
          } else if (step.kind === 'answer') {
            if (pending.length > 0) {
              const [request] = pending.splice(step.pick % pending.length, 1);
              request!.answer({ version: request!.version });
            }
          } else if (step.kind === 'change') {
            replace();
          } else if (step.kind === 'write') {
            replace();
            await cache.invalidate(['g'], 'write');
            lastWrite = version;
          } else {
            now += step.ms;
          }
          await settle();
        }
        for (const request of pending.splice(0)) request.answer({ version: request.version });
        await settle();
        vi.restoreAllMocks();
        expect(problems).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
