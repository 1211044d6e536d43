import { connect } from 'node:net';
import { afterEach, describe, expect, vi } from 'vitest';
import WebSocket from 'ws';
import { killReplicas, startReplica } from '../support/cluster.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { test } from '../support/test.js';
import { connectMcp } from '../mcp/support.js';

// Gateway.stop with work under way: in-flight operations finish, new connections are refused, /ready says
// 503 while draining, WebSockets close with 1001 (Going Away) and pollers stop. Time is never measured: slow
// answers come from sandbox latency faults and every wait is on an event or on the sandbox's counters.

// Lifetime: the test. Starts src/main.ts on its embedded sandbox with `env`, upstream calls that only the stop
// can end, and the sandbox's next answer on `route` held for `latencyMs`; `held()` resolves once that call has
// reached the sandbox. The process is killed after the test.
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
const it = test.extend('holdingReplica', async ({}, { onCleanup }) => {
  onCleanup(() => killReplicas());
  return async (env: Record<string, string>, { route, latencyMs }: { route: string; latencyMs: number }) => {
    const replica = await startReplica({
      SANDBOX_PORT: '0',
      REWARD_API_URL: '',
      UPSTREAM_TIMEOUT_MS: '120000',
      UPSTREAM_RETRY_BUDGET_MS: '240000',
      ...env,
    });
    const control = replica.lines().find((l) => l.controlUrl)!.controlUrl as string;
    await fetch(`${control}faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route, latency_ms: latencyMs, rate: 1, count: 1 }),
    });
    const held = () =>
      vi.waitFor(
        async () => expect(((await (await fetch(`${control}stats`)).json()) as { requests: Record<string, number> }).requests[route]).toBe(1),
        { timeout: 10_000, interval: 10 },
      );
    return { replica, held };
  };
});

let gw: TestGateway | null = null;
let stopped = false;

async function start(env: Record<string, string> = {}): Promise<TestGateway> {
  gw = await startTestGateway({ env });
  stopped = false;
  return gw;
}

afterEach(async () => {
  if (!gw) return;
  // The harness's close() stops the gateway; once a test has done that, only the client and sandbox remain.
  if (stopped) {
    await gw.client.close();
    await gw.sandbox.close();
  } else {
    await gw.close();
  }
  gw = null;
});

function stop(t: TestGateway, deadlineMs: number): Promise<void> {
  stopped = true;
  return t.gateway.stop(deadlineMs);
}

/** Resolves once the sandbox has received `count` requests on `route` (the operation is now in flight). */
async function upstreamReached(t: TestGateway, route: string, count = 1): Promise<void> {
  await vi.waitFor(async () => expect((await t.sandbox.control.stats()).requests[route]).toBe(count), { timeout: 5_000, interval: 5 });
}

/** Whether a new TCP connection to the gateway is accepted. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function slowQuery(t: TestGateway) {
  return fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: 'query Slow { funds { balances { currency availableInCents } } }' }),
  });
}

describe('graceful stop', () => {
  it('lets an operation in flight finish with its data while refusing new connections', async () => {
    const t = await start();
    await t.sandbox.control.fault({ route: 'GET /funds', latency_ms: 1_000, rate: 1, count: 1 });
    let answered = false;
    const slow = slowQuery(t).then((res) => {
      answered = true;
      return res;
    });
    await upstreamReached(t, 'GET /funds');

    const stopping = stop(t, 10_000);
    expect(answered).toBe(false);
    expect(await accepts(t.url)).toBe(false);

    const res = await slow;
    expect(res.status).toBe(200);
    // The client is told not to reuse the connection, so the stop need not wait for a keep-alive timeout.
    expect(res.headers.get('connection')).toBe('close');
    const body = (await res.json()) as { data?: { funds: { balances: unknown[] } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data?.funds.balances.length).toBeGreaterThan(0);
    await stopping;
  });

  it('answers an MCP tool call in flight: MCP clients accept event streams on every POST, and it is drained, not cut', async () => {
    const t = await start({ MCP_ENABLED: 'true' });
    const mcp = await connectMcp(t.url);
    // The balances answer slowly, so the call is still running when the stop begins.
    await t.sandbox.control.fault({ route: 'GET /funds', latency_ms: 300, rate: 1 });
    const call = mcp.client.callTool({ name: 'ReadBalances', arguments: {} });
    await upstreamReached(t, 'GET /funds');
    const stopping = stop(t, 5_000);
    const result = await call;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect((result.structuredContent as { funds: { balances: unknown[] } }).funds.balances.length).toBeGreaterThan(0);
    await stopping;
    await mcp.close();
  });

  it('cuts what is still running at the deadline', async () => {
    const t = await start();
    await t.sandbox.control.fault({ route: 'GET /funds', latency_ms: 10_000, rate: 1, count: 1 });
    const slow = slowQuery(t);
    await upstreamReached(t, 'GET /funds');
    await stop(t, 50);
    await expect(slow).rejects.toThrow();
  });

  it('aborts upstream calls still running at the deadline, creates included, so the process can stop', async () => {
    // A per-attempt timeout longer than the create takes: only the shutdown can end it early.
    const t = await start({ UPSTREAM_TIMEOUT_MS: '120000', UPSTREAM_RETRY_BUDGET_MS: '240000' });
    // The create would take a minute upstream: longer than this test may run.
    await t.sandbox.control.fault({ route: 'POST /campaign', latency_ms: 60_000, rate: 1, count: 1 });
    const create = fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query: 'mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename } }',
        variables: {
          input: {
            id: 'shutdown-create-1',
            priceInCents: 1000,
            reward: { brand: 'sbxcoffeeus' },
            contacts: [{ email: 'ada@example.com' }],
            subject: 'Hi',
            message: 'Thanks.',
          },
        },
      }),
    });
    await upstreamReached(t, 'POST /campaign');
    await stop(t, 50);
    await expect(create).rejects.toThrow();
    // What main.ts does next: closing the upstream pool waits for requests in flight. Without the abort it
    // waited for the minute-long create.
    await t.client.close();
    await t.sandbox.close();
    gw = null;
  });

  it('answers /ready with 503 while draining, still serving, and closes each connection after its answer', async () => {
    const t = await start({ READY_CACHE_MS: '0' });
    expect((await fetch(`${t.url}/ready`)).status).toBe(200);
    t.gateway.drain();

    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining' });
    expect(ready.headers.get('connection')).toBe('close');

    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { username } }' }),
    });
    expect(res.headers.get('connection')).toBe('close');
    expect(((await res.json()) as { data: unknown }).data).toEqual({ viewer: { username: expect.any(String) } });
    await stop(t, 1_000);
  });

  it('closes WebSockets with 1001 and stops the pollers of their subscriptions', async () => {
    const t = await start({ POLL_INTERVAL_FLOOR_MS: '10', POLL_INTERVAL_MS: '50' });
    const polled = new Promise<void>((resolve) => t.gateway.live.listen({ onPoll: () => resolve() }));
    const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const acked = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        if (JSON.parse(String(data)).type === 'connection_ack') resolve();
      }),
    );
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await acked;
    socket.send(
      JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { fundsChanged { funds { balances { currency } } } }' } }),
    );
    await polled;
    expect(t.gateway.live.stats()).toEqual({ pollers: 1, subscribers: 1 });

    await stop(t, 1_000);
    expect(await closed).toBe(1001);
    expect(t.gateway.live.stats()).toEqual({ pollers: 0, subscribers: 0 });
  });
});

/** A WebSocket past connection_ack whose client then stops reading: it never answers the server's close. */
async function unresponsiveWebSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('open', resolve));
  const acked = new Promise((resolve) => socket.once('message', resolve));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await acked;
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { fundsChanged { cursor } }' } }));
  (socket as unknown as { _socket: import('node:net').Socket })._socket.pause();
  return socket;
}

/** An SSE subscription held open by its client. */
function openEventStream(url: string): AbortController {
  const controller = new AbortController();
  void fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { fundsChanged { cursor } }' }),
    signal: controller.signal,
  })
    .then((res) => res.body?.getReader().read())
    .catch(() => undefined);
  return controller;
}

describe('the shutdown deadline', () => {
  const DEADLINE_MS = 1_500;
  // What stop() may take beyond the deadline: closing what the deadline cut, never a second wait.
  const MARGIN_MS = 1_000;

  it('bounds the whole stop, with a request in flight, a WebSocket that never answers its close and an SSE stream open', async () => {
    // Upstream calls that only the stop can end.
    const t = await start({
      POLL_INTERVAL_FLOOR_MS: '10',
      POLL_INTERVAL_MS: '50',
      UPSTREAM_TIMEOUT_MS: '120000',
      UPSTREAM_RETRY_BUDGET_MS: '240000',
    });
    await t.sandbox.control.fault({ route: 'GET /funds', latency_ms: 30_000, rate: 1, count: 1 });
    const slow = slowQuery(t).catch(() => 'cut');
    await upstreamReached(t, 'GET /funds');
    const socket = await unresponsiveWebSocket(t.url);
    const stream = openEventStream(t.url);
    await vi.waitFor(() => expect(t.gateway.live.stats().subscribers).toBe(2));

    const began = performance.now();
    await stop(t, DEADLINE_MS);
    const took = performance.now() - began;
    expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(took).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    expect(await slow).toBe('cut');
    socket.terminate();
    stream.abort();
  });
});

describe('the shutdown deadline of the process (src/main.ts)', { timeout: 90_000 }, () => {
  it('exits within SHUTDOWN_DEADLINE_MS and a margin while the ping behind /ready hangs', async ({ holdingReplica }) => {
    const DEADLINE_MS = 1_000;
    const { replica, held } = await holdingReplica(
      { SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS), READY_CACHE_MS: '0' },
      { route: 'GET /ping', latencyMs: 60_000 },
    );
    // The probe is answered at once; the ping it started in the background hangs.
    expect((await fetch(`${replica.url}/ready`)).status).toBe(200);
    await held();
    const began = performance.now();
    await replica.kill('SIGTERM');
    const took = performance.now() - began;
    expect(replica.child.exitCode).toBe(0);
    expect(took).toBeLessThan(DEADLINE_MS + 1_000);
  });

  it('exits within SHUTDOWN_DEADLINE_MS and a margin while a client holds a request and a WebSocket open', async ({ holdingReplica }) => {
    const DEADLINE_MS = 2_000;
    const { replica, held } = await holdingReplica({ SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS) }, { route: 'GET /funds', latencyMs: 30_000 });
    const slow = fetch(`${replica.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ funds { balances { currency } } }' }),
    }).catch(() => 'cut');
    await held();
    const socket = await unresponsiveWebSocket(replica.url);
    const stream = openEventStream(replica.url);

    const began = performance.now();
    await replica.kill('SIGTERM');
    const took = performance.now() - began;
    expect(replica.child.exitCode).toBe(0);
    expect(took).toBeLessThan(DEADLINE_MS + 1_500);
    expect(await slow).toBe('cut');
    socket.terminate();
    stream.abort();
  });
});
