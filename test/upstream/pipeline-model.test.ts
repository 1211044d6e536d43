import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCaller, type CallSpec } from '../../src/upstream/call.js';
import { memoryCeiling } from '../../src/upstream/budget.js';
import { resolveConfig } from '../../src/upstream/config.js';
import { UpstreamError, type UpstreamErrorKind } from '../../src/upstream/errors.js';
import { abortedFailure, networkFailure, timeoutFailure } from '../../src/upstream/failures.js';
import { stopped, watch, type Stops } from '../../src/upstream/stops.js';
import type { Transport, WireResponse } from '../../src/upstream/transport.js';
import type { UpstreamScope } from '../../src/upstream/scope.js';

// A model-based test of the upstream call pipeline (budget, bulkhead, breaker, retries, transport) in simulated
// time: fast-check generates calls (reads, writes and polls of several keys, some aborted) arriving over a few
// seconds and an upstream answering each attempt with 200, 503, 429 + Retry-After, a reset, a timeout or a slow
// 200, until it heals. After each run the pipeline is idle and:
//   - no slot is held or waited for, no token waited for, and every token taken was spent by an attempt that
//     reached the upstream or given back (tokens granted − refunded = attempts sent);
//   - within the half-open pause plus one probe of the upstream healing, the circuit is closed and a read succeeds;
//   - every failure is an UpstreamError of a known kind (what the schema maps to the catalogue);
//   - a write refused as unavailable (circuit open, busy, overloaded) sent nothing; a write that may have been
//     sent and failed says outcomeUnknown;
//   - a write is never refused for want of a token while reads took tokens.
// FC_RUNS raises the number of runs (a long soak: FC_RUNS=2000 npx vitest run test/upstream/pipeline-model.test.ts).

const RUNS = Number(process.env.FC_RUNS ?? 100);
const TIMEOUT_MS = 400;
const HALF_OPEN_MS = 500;
const KINDS: readonly UpstreamErrorKind[] = ['http', 'network', 'timeout', 'aborted', 'overloaded', 'invalid_response', 'busy', 'circuit_open'];
const UNSENT: readonly UpstreamErrorKind[] = ['circuit_open', 'busy', 'overloaded'];

type Outcome = 'ok' | '503' | '429' | 'reset' | 'timeout' | 'slow';
type Kind = 'read' | 'write' | 'poll';

interface Op {
  at: number;
  kind: Kind;
  lane: 'key:a' | 'key:b';
  abortAfter: number | null;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  at: fc.integer({ min: 0, max: 1_500 }),
  kind: fc.constantFrom<Kind>('read', 'read', 'read', 'write', 'poll'),
  lane: fc.constantFrom('key:a' as const, 'key:b' as const),
  abortAfter: fc.option(fc.integer({ min: 0, max: 800 }), { freq: 4 }),
});

const scenarioArb = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 40 }),
  outcomes: fc.array(fc.constantFrom<Outcome>('ok', 'ok', '503', '429', 'reset', 'timeout', 'slow'), { minLength: 1, maxLength: 30 }),
  healAt: fc.integer({ min: 0, max: 4_000 }),
  latency: fc.integer({ min: 1, max: 300 }),
  maxInFlight: fc.integer({ min: 1, max: 4 }),
  rate: fc.constantFrom(4, 20, 100),
});

/** The simulated reward API: answers each attempt by the scenario's outcomes (cycled) until it heals. */
function simulatedUpstream(outcomes: Outcome[], latency: number, healed: () => boolean) {
  /** Every attempt that reached the upstream; `unclear` once its end left its effect open (5xx, reset, no answer). */
  const sent: { route: string; id: string | undefined; unclear: boolean }[] = [];
  let n = 0;
  const transport: Transport = {
    send(req, body, timeoutMs, stops: Stops, _requestId, _attempt, done) {
      if (stopped(stops)) {
        done();
        return Promise.reject(abortedFailure(req.route));
      }
      const attempt = { route: req.route, id: body === undefined ? undefined : (JSON.parse(body) as { id: string }).id, unclear: false };
      sent.push(attempt);
      const outcome: Outcome = healed() ? 'ok' : outcomes[n++ % outcomes.length]!;
      return new Promise<WireResponse>((resolve, reject) => {
        let settled = false;
        const end = (settle: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(answer);
          clearTimeout(deadline);
          watching.end();
          done();
          settle();
        };
        const unclear = (error: Error) => () => {
          attempt.unclear = true;
          reject(error);
        };
        const stop = { stop: () => end(unclear(abortedFailure(req.route, true))) };
        const watching = watch(stops, stop);
        const deadline = setTimeout(() => end(unclear(timeoutFailure(req.route, timeoutMs))), timeoutMs);
        const answerIn = outcome === 'timeout' ? timeoutMs * 2 : outcome === 'slow' ? Math.floor(timeoutMs * 0.8) : latency;
        const answer = setTimeout(
          () =>
            end(() => {
              attempt.unclear = outcome === 'reset' || outcome === '503';
              if (outcome === 'reset') reject(networkFailure(req.route, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
              else if (outcome === '503') resolve({ status: 503, json: undefined, retryAfterSeconds: null });
              else if (outcome === '429') resolve({ status: 429, json: { error: 'too many' }, retryAfterSeconds: 1 });
              else resolve({ status: 200, json: { ok: true }, retryAfterSeconds: null });
            }),
          answerIn,
        );
      });
    },
    close: async () => undefined,
  };
  return { transport, sent };
}

function spec(kind: Kind, i: number): CallSpec<unknown> {
  const parse = (json: unknown) => ({ ok: true as const, value: json });
  if (kind === 'write') return { method: 'POST', route: 'POST /campaign', path: '/campaign', body: { id: `w-${i}` }, idempotent: true, parse };
  return { method: 'GET', route: 'GET /campaign/:id', path: `/campaign/r-${i}`, idempotent: true, parse };
}

describe('the upstream call pipeline, model-based', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives back every slot and token, closes the circuit after healing, and answers only known, honest failures', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ ops, outcomes, healAt, latency, maxInFlight, rate }) => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
        const start = Date.now();
        const upstream = simulatedUpstream(outcomes, latency, () => Date.now() - start >= healAt);
        const config = resolveConfig({
          baseUrl: 'http://upstream.test/papi/v1',
          token: 'model-token-0123456789',
          timeoutMs: TIMEOUT_MS,
          maxInFlight,
          laneShare: 0.5,
          queueTimeoutMs: 1_000,
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, budgetMs: 2_500 },
          breaker: { failures: 3, halfOpenAfterMs: HALF_OPEN_MS },
        });
        const caller = createCaller(config, (text) => text, upstream.transport);
        // The memory ceiling, counted: every token granted is spent by an attempt sent or refunded.
        const bucket = memoryCeiling({ rate, burst: Math.max(1, Math.floor(rate / 2)) });
        const counts = { granted: 0, refunded: 0 };
        caller.shield.shareCeiling({
          limits: bucket.limits,
          take(reserve) {
            const answer = bucket.take(reserve) as { granted: boolean; waitMs: number };
            if (answer.granted) counts.granted++;
            return answer;
          },
          refund() {
            counts.refunded++;
            return bucket.refund();
          },
          tokens: () => bucket.tokens(),
        });
        let readsGranted = 0;
        const results: { op: Op; i: number; error: unknown }[] = [];
        const calls = ops.map((op, i) => {
          const scope: UpstreamScope = op.kind === 'poll' ? { lane: 'gateway', priority: 'poll' } : { lane: op.lane };
          return new Promise<void>((resolve) => {
            setTimeout(() => {
              const controller = new AbortController();
              if (op.abortAfter !== null) setTimeout(() => controller.abort(), op.abortAfter);
              caller.call(spec(op.kind, i), scope, controller.signal).then(
                () => {
                  if (op.kind !== 'write') readsGranted++;
                  results.push({ op, i, error: null });
                  resolve();
                },
                (error: unknown) => {
                  results.push({ op, i, error });
                  resolve();
                },
              );
            }, op.at);
          });
        });
        // Everything ends within the last arrival plus the call budget, the breaker's pause and a probe.
        await vi.advanceTimersByTimeAsync(3_000 + 2_500 + TIMEOUT_MS * 2);
        await Promise.all(calls);
        try {
          // Healed: within the half-open pause and one probe the circuit is closed.
          const sinceHeal = Math.max(0, healAt - (Date.now() - start));
          await vi.advanceTimersByTimeAsync(sinceHeal + HALF_OPEN_MS + 5 + latency + 1);
          expect(caller.shield.state().circuit).toBe('closed');
          const after = caller.call(spec('read', 10_000), { lane: 'key:a' });
          await vi.advanceTimersByTimeAsync(2_500);
          await expect(after).resolves.toEqual({ ok: true });

          // Idle: nothing held, nothing waiting, every token spent or given back.
          await vi.advanceTimersByTimeAsync(TIMEOUT_MS * 3);
          expect(caller.bulkhead.inFlight).toBe(0);
          expect(caller.bulkhead.queued).toBe(0);
          expect(caller.shield.state().waiting).toEqual({ write: 0, poll: 0, read: 0 });
          expect(counts.granted - counts.refunded).toBe(upstream.sent.length);

          for (const { op, i, error } of results) {
            if (error === null) continue;
            expect(error).toBeInstanceOf(UpstreamError);
            const failure = error as UpstreamError;
            expect(KINDS).toContain(failure.kind);
            if (op.kind !== 'write') continue;
            const attempts = upstream.sent.filter((s) => s.id === `w-${i}`);
            if (UNSENT.includes(failure.kind) && attempts.length > 0) {
              // Refused at a retry: what came before decides, and an unclear earlier attempt is never "nothing sent".
              expect(failure.attempts, `write ${i} refused as ${failure.kind}`).toBeGreaterThan(1);
            }
            if (attempts.some((a) => a.unclear))
              expect(failure.outcomeUnknown, `write ${i} failed as ${failure.kind} after an unclear attempt`).toBe(true);
            if (attempts.length === 0) expect(failure.outcomeUnknown ?? false, `write ${i} sent nothing`).toBe(false);
            if (failure.kind === 'busy' && readsGranted > 0) expect.fail(`write ${i} refused busy while reads took tokens`);
          }
        } finally {
          await caller.close();
          vi.useRealTimers();
        }
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
