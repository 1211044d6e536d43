import { context, trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { LiveQueries, type LiveRound } from '../../src/live/live-queries.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

// Each resolution of a live query is a trace of its own, `live.query.resolve`, linked to the poll (or the
// operation) that caused it. In process, an in-memory exporter behind the SDK's tracer provider, recording for this
// file's tests only (test/support/in-memory-tracing.ts).

const { exporter } = inMemoryTracing();

it('a re-resolution caused by a poll is a span linked to the poll, saying why and whether it changed', async () => {
  const liveQueries = new LiveQueries({
    watchOrder: () => () => undefined,
    maxWatchedOrders: 10,
    refreshMs: 60_000,
    catalogueRefreshMs: 3_600_000,
    cap: { admit: () => Promise.resolve(() => undefined), close: () => undefined },
  });
  let balance = 1;
  const resolve = (): Promise<LiveRound> => Promise.resolve({ data: { balance }, groups: new Set(['ns:gifts:c:1']), orders: new Set() });
  const viewer = await liveQueries.open('dashboard', 'key', resolve, { patches: false });
  await viewer.next();

  balance = 2;
  const poll = trace.getTracer('test').startSpan('live.poll');
  await context.with(trace.setSpan(context.active(), poll), () => liveQueries.invalidate(['ns:gifts:c:1'], 'poller'));
  poll.end();
  expect((await viewer.next()).value).toEqual({ data: { balance: 2 } });
  // The same result again: a resolution, a span, nothing sent.
  await liveQueries.invalidate(['ns:gifts:c:1'], 'poller');

  const resolutions = exporter.getFinishedSpans().filter((span) => span.name === 'live.query.resolve');
  expect(resolutions.map((span) => [span.attributes['reward.live_query.cause'], span.attributes['reward.live_query.changed']])).toEqual([
    ['first', true],
    ['poller', true],
    ['poller', false],
  ]);
  expect(resolutions[1]!.links.map((link) => link.context.spanId)).toEqual([poll.spanContext().spanId]);
  expect(resolutions[1]!.parentSpanContext).toBeUndefined();
  await viewer.return?.();
  liveQueries.close();
});
