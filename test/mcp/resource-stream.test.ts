import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryMcpSubscriptions } from '../../src/mcp/memory-subscriptions.js';
import { serveResourceStream } from '../../src/mcp/resource-stream.js';
import { watchOperation, type AnyYoga } from '../../src/mcp/run-operation.js';
import type { GraphQLAnswer } from '../../src/mcp/tool-results.js';
import { eventually } from '../support/cluster.js';

// A session's stream and the live queries following its subscriptions, alone (no gateway): what it does with a
// follow that is refused again and again, and with a refusal that yoga answers as JSON rather than as events.

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves one session's stream over `watch` with short retry delays; the failures said, and the stream's end. */
async function streamOver(watch: (uri: string) => AsyncIterable<GraphQLAnswer>) {
  const records = memoryMcpSubscriptions();
  const failures: string[] = [];
  server = createServer((req, res) =>
    serveResourceStream(
      { records, watch, onWatchFailed: (_uri, reason) => failures.push(reason), retryDelaysMs: [1, 2] },
      'session',
      req,
      res,
      {},
      null,
    ),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const controller = new AbortController();
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { signal: controller.signal });
  expect(res.status).toBe(200);
  return { records, failures, close: () => controller.abort() };
}

describe('following a subscribed resource', () => {
  it('a follow refused again and again for the same reason is said once, and again when the reason changes or after it worked', async () => {
    const answers: GraphQLAnswer[] = [
      ...Array.from({ length: 20 }, () => ({ errors: [{ message: 'at the cap' }] })),
      { errors: [{ message: 'rate limited' }] },
      { data: { campaign: { status: 'CREATED' } } },
      { errors: [{ message: 'rate limited' }] },
    ];
    let attempts = 0;
    const stream = await streamOver(async function* () {
      attempts += 1;
      const answer = answers.shift();
      if (answer) yield answer;
    });
    try {
      await stream.records.subscribe('session', 'reward://campaign/a', 'seen', 20);
      await eventually(() => answers.length === 0 && attempts > 24, 5, { ms: 10_000, what: 'every answer to be read' });
      expect(stream.failures).toEqual(['at the cap', 'rate limited', 'rate limited']);
    } finally {
      stream.close();
    }
  });
});

describe('a stream that ends itself', () => {
  it('writes nothing once it ended: a change that arrives as a newer stream takes over is not written after the end', async () => {
    let change: (answer: GraphQLAnswer) => void = () => undefined;
    let watching: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (watching = resolve));
    const stream = await streamOver(async function* () {
      const next = new Promise<GraphQLAnswer>((resolve) => (change = resolve));
      watching();
      yield await next;
    });
    try {
      await stream.records.subscribe('session', 'reward://campaign/a', 'seen', 20);
      await started;
      const errors: unknown[] = [];
      const onError = (error: unknown) => errors.push(error);
      process.on('uncaughtException', onError);
      try {
        // A newer stream of the session: this one ends, and in the same turn its live query reads a change.
        const stop = stream.records.follow(
          'session',
          () => undefined,
          () => undefined,
        );
        change({ data: { campaign: { status: 'REDEEMED' } } });
        await new Promise((resolve) => setTimeout(resolve, 50));
        stop();
      } finally {
        process.off('uncaughtException', onError);
      }
      expect(errors).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('a live query run as the caller', () => {
  it('a refusal answered as JSON (a 401, a 429) is its one answer, not an empty stream', async () => {
    const refusal = { errors: [{ message: 'The access token was refused: the token has expired.', extensions: { code: 'INVALID_TOKEN' } }] };
    const yoga = {
      fetchAPI: { Request },
      handleRequest: async () => new Response(JSON.stringify(refusal), { status: 401, headers: { 'content-type': 'application/json' } }),
    } as unknown as AnyYoga;
    const req = { headers: {}, socket: {} } as never;
    const answers: GraphQLAnswer[] = [];
    for await (const answer of watchOperation(yoga, { query: '{ a }' }, {}, req, new AbortController().signal)) answers.push(answer);
    expect(answers).toEqual([refusal]);
  });
});
