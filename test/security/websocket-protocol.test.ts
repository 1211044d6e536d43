import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { testWith } from '../support/test.js';
import { KEYS, KEYS_ENV } from './keys.js';

// What a client sends that graphql-transport-ws does not allow closes its socket with 4400 (Bad Request), the
// client's fault, not 4500; and nothing a client sends puts an error or a stack in the gateway's log.

const lines: Record<string, unknown>[] = [];
// The file's gateway, listening (the tests speak to its socket).
const it = testWith({
  env: { ...KEYS_ENV, LOG_LEVEL: 'debug', WS_MAX_PAYLOAD_BYTES: '10000' },
  logTo: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
});

/** A socket to the gateway at `url`, past connection_ack, speaking graphql-transport-ws by hand. */
async function acknowledged(url: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const acked = new Promise<void>((resolve) =>
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') resolve();
    }),
  );
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${KEYS.reader.key}` } }));
  await acked;
  return socket;
}

function closeOf(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
}

/** The ids of the messages a socket receives, by type. */
function messagesOf(socket: WebSocket): { type: string; id?: string; payload?: unknown }[] {
  const received: { type: string; id?: string }[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as { type: string; id?: string }));
  return received;
}

const logSince = (from: number) => lines.slice(from);

describe('messages only a server sends', () => {
  it.for([
    ['next', { id: '1', type: 'next', payload: { data: {} } }],
    ['connection_ack', { type: 'connection_ack' }],
    ['error', { id: '1', type: 'error', payload: [{ message: 'x' }] }],
  ])('a client sending %s is closed with 4400, logged at debug only', async ([type, message], { gateway }) => {
    const url = await gateway.listen();
    const from = lines.length;
    const socket = await acknowledged(url);
    const closed = closeOf(socket);
    socket.send(JSON.stringify(message));
    expect(await closed).toEqual({ code: 4400, reason: `A client may not send ${type} messages` });
    const logged = logSince(from).filter((l) => String(l.msg).startsWith('websocket'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'debug', code: 4400 });
  });
});

describe('operation ids', () => {
  const subscribe = (id: string) => JSON.stringify({ id, type: 'subscribe', payload: { query: '{ viewer { username } }' } });

  it('accepts an id of 128 characters', async ({ gateway }) => {
    const url = await gateway.listen();
    const socket = await acknowledged(url);
    const received = messagesOf(socket);
    const id = 'i'.repeat(128);
    socket.send(subscribe(id));
    await expect.poll(() => received.find((m) => m.type === 'complete')?.id).toBe(id);
    expect(received.find((m) => m.type === 'next')?.payload).toEqual({ data: { viewer: { username: expect.any(String) } } });
    socket.close();
  });

  it('closes a socket sending a longer one with 4400 before anything runs', async ({ gateway }) => {
    const url = await gateway.listen();
    await gateway.upstreamDelta();
    const socket = await acknowledged(url);
    const received = messagesOf(socket);
    const closed = closeOf(socket);
    socket.send(subscribe('i'.repeat(129)));
    expect(await closed).toEqual({ code: 4400, reason: 'Operation ids are at most 128 characters' });
    expect(received).toEqual([]);
    expect(await gateway.upstreamDelta()).toEqual({});
  });
});

describe('malformed frames and messages', () => {
  it.for<[string, (s: WebSocket) => void, number]>([
    ['a text frame that is not UTF-8', (s: WebSocket) => s.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false }), 1007],
    ['a message over WS_MAX_PAYLOAD_BYTES', (s: WebSocket) => s.send('x'.repeat(10_001)), 1009],
    ['text that is not JSON', (s: WebSocket) => s.send('{"type": '), 4400],
    ['JSON that is no graphql-ws message', (s: WebSocket) => s.send('{"type": "subscribe", "id": 7}'), 4400],
    [
      'a message encoded twice, hiding a next',
      (s: WebSocket) => s.send(JSON.stringify(JSON.stringify({ id: '1', type: 'next', payload: {} }))),
      4400,
    ],
  ])('%s closes the socket, logs no error nor stack, and the gateway serves on', async ([, send, code], { gateway }) => {
    const url = await gateway.listen();
    const from = lines.length;
    const socket = await acknowledged(url);
    const closed = closeOf(socket);
    send(socket);
    expect((await closed).code).toBe(code);
    const logged = logSince(from);
    expect(logged.filter((l) => l.level !== 'debug' && l.level !== 'info')).toEqual([]);
    expect(JSON.stringify(logged)).not.toMatch(/stack|\s+at /);
    expect(logged.filter((l) => l.level === 'debug' && String(l.msg).startsWith('websocket')).length).toBeLessThanOrEqual(1);
    const again = await acknowledged(url);
    again.close();
  });
});

describe('errors over WebSocket', () => {
  // extensions.http is yoga's note to its HTTP layer (the status to answer with): a WebSocket has no status.
  it.for([
    ['a validation error', '{ viewer { usernam } }', undefined],
    ['an operation limit', `{ ${Array.from({ length: 21 }, (_, i) => `a${i}: viewer { username }`).join(' ')} }`, undefined],
    ['a variable that was not provided', 'query ($n: Int!) { gifts(first: $n) { totalCount } }', undefined],
  ])('%s carries no extensions.http', async ([, query, variables], { gateway }) => {
    const url = await gateway.listen();
    const socket = await acknowledged(url);
    const received = messagesOf(socket);
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
    await expect.poll(() => received.some((m) => m.type === 'error' || m.type === 'complete')).toBe(true);
    const errors = received.flatMap((m) => (m.type === 'error' ? m.payload : (m.payload as { errors?: unknown[] } | undefined)?.errors) ?? []);
    expect(errors.length, JSON.stringify(received)).toBeGreaterThan(0);
    expect(JSON.stringify(errors)).not.toContain('"http"');
    socket.close();
  });
});
