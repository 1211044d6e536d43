import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { Channel } from '../../src/live/channel.js';
import { createLogger } from '../../src/ops/logger.js';
import { useOperationLog } from '../../src/ops/use-operation-log.js';

// The operation log follows a subscription's stream in a wrapper of its own (use-operation-log.ts): one
// "subscription ended" line whichever way the stream ends, and the wrapper must pass the client's leaving on to
// the source, or the live hub would never learn that a subscriber left.

let sourceClosed = 0;
const schema = createSchema({
  typeDefs: 'type Query { ok: Boolean } type Subscription { ticks(count: Int!): Int }',
  resolvers: {
    Subscription: {
      ticks: {
        // As the live hub's streams are: a queue whose return() takes effect at once (src/live/channel.ts).
        subscribe(_: unknown, { count }: { count: number }) {
          const channel = new Channel<{ ticks: number }>(() => (sourceClosed += 1));
          for (let i = 1; i <= count; i += 1) channel.push({ ticks: i });
          // One tick is a stream that never ends by itself: only the client's leaving ends it.
          if (count > 1) channel.end();
          return channel;
        },
      },
    },
  },
});

function gateway() {
  const lines: { msg: string; outcome?: string; durationMs?: number }[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  const yoga = createYoga({ schema, logging: false, plugins: [useOperationLog({ logger })] });
  const subscribe = (count: number) =>
    yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: `subscription Ticks { ticks(count: ${count}) }` }),
    });
  const about = () => lines.filter((l) => l.msg.startsWith('subscription')).map((l) => [l.msg, l.outcome]);
  return { subscribe, about, lines };
}

describe('the operation log of a subscription', () => {
  it('logs one ended line, ok, when the stream completes', async () => {
    const { subscribe, about } = gateway();
    const text = await (await subscribe(3)).text();
    expect(text).toContain('"ticks":3');
    expect(about()).toEqual([
      ['subscription started', undefined],
      ['subscription ended', 'ok'],
    ]);
  });

  it('logs one ended line, ok, when the client leaves, and the source is closed', async () => {
    const { subscribe, about, lines } = gateway();
    const closedBefore = sourceClosed;
    const res = await subscribe(1);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('"ticks":1')) seen += new TextDecoder().decode((await reader.read()).value);
    // The client leaves: the response's stream is cancelled, as yoga's server adapter does on a disconnect.
    await reader.cancel();
    await expect.poll(() => sourceClosed).toBe(closedBefore + 1);
    await expect.poll(about).toEqual([
      ['subscription started', undefined],
      ['subscription ended', 'ok'],
    ]);
    expect(lines.find((l) => l.msg === 'subscription ended')?.durationMs).toBeGreaterThanOrEqual(0);
  });
});
