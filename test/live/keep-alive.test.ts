import type { AddressInfo } from 'node:net';
import { makeServer } from 'graphql-ws';
import { createSchema } from 'graphql-yoga';
import { describe, expect } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { serveGraphqlWs } from '../../src/edge/graphql-ws-adapter.js';
import { test } from '../support/test.js';

// The WebSocket adapter's one keep-alive timer for all sockets: a socket that answers pings stays, one that
// does not is cut by the next round. Waits on pings and closes, never on time.

const KEEP_ALIVE_MS = 20;
/** Nothing in these tests should reach the adapter's error log. */
const SILENT = { error: () => undefined, debug: () => undefined };

/** Lifetime: the test. A graphql-ws endpoint of the adapter alone on a WebSocketServer of its own; its URL. */
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
const it = test.extend('url', async ({}, { onCleanup }) => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  const schema = createSchema({ typeDefs: 'type Query { ok: Boolean }', resolvers: { Query: { ok: () => true } } });
  const endpoint = serveGraphqlWs(wss, makeServer({ schema }), () => ({}), SILENT, { keepAliveMs: KEEP_ALIVE_MS });
  onCleanup(() => endpoint.dispose());
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
});

function connect(url: string, autoPong: boolean): Promise<WebSocket> {
  const socket = new WebSocket(url, 'graphql-transport-ws', { autoPong });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));

describe('WebSocket keep-alive', () => {
  it('keeps a socket that answers pings, and it still speaks graphql-ws', async ({ url }) => {
    const socket = await connect(url, true);
    let pings = 0;
    await new Promise<void>((resolve) => socket.on('ping', () => ++pings === 3 && resolve()));
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.send(JSON.stringify({ type: 'connection_init' }));
    const ack = await new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    expect(JSON.parse(ack)).toEqual({ type: 'connection_ack' });
    const code = closed(socket);
    socket.close();
    expect(await code).toBe(1005);
  });

  it('cuts a socket that does not answer a ping by the next round', async ({ url }) => {
    const socket = await connect(url, false);
    const pinged = new Promise((resolve) => socket.once('ping', resolve));
    const code = closed(socket);
    await pinged;
    // Terminated, not closed with a frame: the peer is presumed gone.
    expect(await code).toBe(1006);
  });

  it('closes the sockets left with 1001 (Going Away) when disposed', async () => {
    const own = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => own.once('listening', resolve));
    const ownEndpoint = serveGraphqlWs(own, makeServer({}), () => ({}), SILENT);
    const socket = new WebSocket(`ws://127.0.0.1:${(own.address() as AddressInfo).port}`, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const code = closed(socket);
    await ownEndpoint.dispose();
    expect(await code).toBe(1001);
  });
});
