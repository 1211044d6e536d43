import net from 'node:net';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { createTestGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';
import { KEYS_ENV } from './keys.js';

// Requests fetch cannot send: a full URL or `*` as the request target, a Host no URL can be built from. Each
// is refused before authentication with a 400 naming the problem in one JSON line, and one debug log line:
// never a 500 carrying a stack trace. A WebSocket upgrade is refused alike (ws, left to it, would upgrade a
// malformed Host and answer a full URL with an HTML page).

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

function send(url: string, request: string): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body });
    });
  });
}

const CASES = [
  { name: 'an absolute-form URL', request: 'GET http://evil/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', code: 'ABSOLUTE_FORM_TARGET' },
  {
    name: 'an absolute-form URL on a POST',
    request: 'POST http://evil/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    code: 'ABSOLUTE_FORM_TARGET',
  },
  { name: 'OPTIONS *', request: 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', code: 'ASTERISK_FORM_TARGET' },
  { name: 'a Host with a space', request: 'GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: a b\r\n\r\n', code: 'MALFORMED_HOST' },
  { name: 'an unclosed IPv6 Host', request: 'GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: [::1\r\n\r\n', code: 'MALFORMED_HOST' },
  { name: 'a Host with two ports', request: 'GET /graphql HTTP/1.1\r\nHost: a:1:2\r\n\r\n', code: 'MALFORMED_HOST' },
  { name: 'a Host with a port out of range', request: 'GET /health HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n\r\n', code: 'MALFORMED_HOST' },
];

/** The same request as a WebSocket upgrade (as graphql-ws clients open their socket). */
const asUpgrade = (request: string) =>
  request.replace(
    '\r\n',
    '\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n',
  );

const TRANSPORTS = { HTTP: (request: string) => request, 'a WebSocket upgrade': asUpgrade };

const lines: string[] = [];
const logTo = { write: (line: string) => void lines.push(line) };

// Two gateways writing to `lines`, both listening: the file's, with keys (open to any Host), and a keyless one
// over the same sandbox (loopback names only).
const it = testWith({ env: { ...KEYS_ENV, LOG_LEVEL: 'trace' }, logTo }).extend(
  'loopbackOnly',
  { scope: 'file' },
  async ({ sandbox }, { onCleanup }) => {
    const loopbackOnly = createTestGateway(sandbox, { env: { LOG_LEVEL: 'trace' }, logTo });
    onCleanup(() => loopbackOnly.close());
    return loopbackOnly;
  },
);

describe('request targets and Host headers no URL can be built from', () => {
  for (const [transport, shaped] of Object.entries(TRANSPORTS)) {
    for (const { name, request, code } of CASES) {
      it(`${name} over ${transport}: 400 ${code}, one JSON line, one debug log line, no stack`, async ({ gateway: open, loopbackOnly }) => {
        for (const gateway of [open, loopbackOnly]) {
          const url = await gateway.listen();
          lines.splice(0);
          const answer = await send(url, shaped(request));
          expect(answer.status).toBe(400);
          expect(answer.headers.toLowerCase()).toContain('content-type: application/json');
          expect(answer.body.trim()).not.toContain('\n');
          expect(JSON.parse(answer.body)).toEqual({ errors: [{ message: expect.any(String), extensions: { code } }] });
          expect(answer.body).not.toMatch(/\bat .*:\d+/);
          expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ level: 'debug', code })]);
          expect(lines.join('')).not.toMatch(/stack|\bat .*:\d+/);
        }
      });
    }
  }

  it('still serves well-formed Hosts: a name with a port, IPv4, IPv6', async ({ loopbackOnly }) => {
    const url = await loopbackOnly.listen();
    for (const host of ['localhost:4000', '127.0.0.1', '[::1]:8080']) {
      const answer = await send(url, `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(answer.status, host).toBe(200);
    }
  });

  it('still upgrades a WebSocket with a well-formed Host', async ({ loopbackOnly }) => {
    const url = await loopbackOnly.listen();
    for (const host of ['localhost:4000', '[::1]:8080']) {
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { host } });
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      socket.close();
    }
  });
});
