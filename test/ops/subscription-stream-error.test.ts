import { createSchema, createYoga } from 'graphql-yoga';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/ops/logger.js';
import { useOperationLog } from '../../src/ops/use-operation-log.js';
import { useOperationMetrics } from '../../src/ops/use-operation-metrics.js';

// A subscription whose stream fails after it started: envelop reports that error to `onSubscribeError` (and only
// that: a refusal at subscribe time is a result), so the operation's log and metrics must read it as a stream
// that ended in error, not as a second operation or a refusal.

const schema = createSchema({
  typeDefs: 'type Query { ok: Boolean } type Subscription { ticks: Int }',
  resolvers: {
    Subscription: {
      ticks: {
        async *subscribe() {
          yield { ticks: 1 };
          throw new Error('the source failed');
        },
      },
    },
  },
});

describe('a subscription whose stream fails after it started', () => {
  it('is one operation: started, then ended with outcome error; never refused, never counted twice', async () => {
    const lines: { msg: string; outcome?: string }[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const registry = new Registry();
    const yoga = createYoga({ schema, logging: false, plugins: [useOperationLog({ logger }), useOperationMetrics({ registry })] });
    const res = await yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription Ticks { ticks }' }),
    });
    await res.text();
    const about = lines.filter((l) => l.msg.startsWith('subscription'));
    expect(about.map((l) => [l.msg, l.outcome])).toEqual([
      ['subscription started', undefined],
      ['subscription ended', 'error'],
    ]);
    const counted = (await registry.getSingleMetric('reward_gateway_graphql_operations_total')!.get()).values;
    expect(counted.map((v) => [v.labels.outcome, v.value])).toEqual([['ok', 1]]);
  });
});
