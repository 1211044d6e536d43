import { connect, type Socket } from 'node:net';
import { describe, expect, vi } from 'vitest';
import { PollWatch, subscribeSse } from '../support/live.js';
import { testWith } from '../support/test.js';

// What a client can make the HTTP server hold: headers sent byte by byte (slowloris), a body that never
// ends, an idle keep-alive connection and more connections than the cap are all let go on the configured
// bound, while other clients are served throughout. Short configured timeouts; the waits are on the socket.

const HEADERS_MS = 300;
const REQUEST_MS = 600;
const KEEP_ALIVE_MS = 200;

// The file's gateway, listening (everything here is about its socket); `url` is where, `watch` its polls.
const it = testWith({
  env: {
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    POLL_INTERVAL_MS: '50',
    POLL_INTERVAL_FLOOR_MS: '10',
  },
})
  .extend('watch', { scope: 'file' }, async ({ gateway }) => {
    const watch = new PollWatch();
    gateway.gateway.live.listen(watch);
    return watch;
  })
  .extend('url', { scope: 'file' }, async ({ gateway }) => gateway.listen());

interface Raw {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves when the server has closed the connection, with how long it was open. */
  closed: Promise<number>;
}

async function open(url: string): Promise<Raw> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let data = '';
  socket.on('data', (d) => (data += d));
  socket.on('error', () => undefined);
  const began = performance.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - began)));
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => data, closed };
}

/** Writes `text` one byte every `everyMs` until it is all sent or the server closes; returns the bytes sent. */
async function trickle(raw: Raw, text: string, everyMs: number): Promise<number> {
  let sent = 0;
  let closed = false;
  void raw.closed.then(() => (closed = true));
  while (sent < text.length && !closed) {
    raw.socket.write(text[sent]!);
    sent += 1;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return sent;
}

const health = async (url: string) => (await fetch(`${url}/health`, { headers: { connection: 'close' } })).status;

describe('slow clients', () => {
  it('closes a connection trickling its headers (slowloris) with 408 after HTTP_HEADERS_TIMEOUT_MS, serving others meanwhile', async ({ url }) => {
    const raw = await open(url);
    const headers = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(2_000)}\r\n\r\n`;
    const sending = trickle(raw, headers, 10);
    expect(await health(url)).toBe(200);
    const openFor = await raw.closed;
    expect(await sending).toBeLessThan(headers.length);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(openFor).toBeGreaterThanOrEqual(HEADERS_MS);
    expect(await health(url)).toBe(200);
  });

  it('closes a connection trickling its body with 408 after HTTP_REQUEST_TIMEOUT_MS', async ({ url }) => {
    const raw = await open(url);
    const body = JSON.stringify({ query: `{ viewer { username } } #${'x'.repeat(2_000)}` });
    raw.socket.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    const sent = await trickle(raw, body, 10);
    const openFor = await raw.closed;
    expect(sent).toBeLessThan(body.length);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(openFor).toBeGreaterThanOrEqual(REQUEST_MS);
  });

  it('counts only the request: an answer and an SSE stream may outlast HTTP_REQUEST_TIMEOUT_MS', async ({ gateway, url, watch }) => {
    const stream = subscribeSse(url, 'subscription { fundsChanged { funds { balances { currency } } } }');
    await watch.until(() => watch.completed('funds') >= 1);
    // Every read of the balances is slow meanwhile, the poller's too: the query's own is certain to be.
    await gateway.sandbox.control.fault({ route: 'GET /funds', latency_ms: 2 * REQUEST_MS, rate: 1, count: 1_000 });
    // Over the socket, where the request timeout applies (the in-process gql would not pass through it).
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ funds { balances { currency } } }' }),
    });
    const slow = { status: answer.status, body: (await answer.json()) as { errors?: unknown[] } };
    await gateway.sandbox.control.clearFaults();
    expect(slow.status).toBe(200);
    expect(slow.body.errors).toBeUndefined();
    // The stream has been open longer than the request timeout by now, and still delivers.
    await gateway.sandbox.control.topUp('USD', 50_000);
    expect((await stream.next()).data.fundsChanged.funds.balances.length).toBeGreaterThan(0);
    stream.close();
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async ({ url }) => {
    const raw = await open(url);
    raw.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const openFor = await raw.closed;
    expect(raw.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(openFor).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
  });
});

describe('HTTP_MAX_CONNECTIONS', () => {
  it('drops connections past the cap before reading them, and accepts again once one closes', async ({ gatewayWith }) => {
    const capped = await gatewayWith({ env: { HTTP_MAX_CONNECTIONS: '3' }, listen: true });
    const connections = () => new Promise<number>((resolve) => capped.gateway.server.getConnections((_e, n) => resolve(n)));
    const held = await Promise.all([open(capped.url), open(capped.url), open(capped.url)]);
    await vi.waitFor(async () => expect(await connections()).toBe(3));
    const extra = await open(capped.url);
    extra.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await extra.closed;
    expect(extra.received()).toBe('');

    held[0]!.socket.destroy();
    await vi.waitFor(async () => expect(await connections()).toBe(2));
    expect(await health(capped.url)).toBe(200);
    for (const raw of held) raw.socket.destroy();
  });
});
