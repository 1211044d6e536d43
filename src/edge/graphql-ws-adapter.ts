// graphql-ws's protocol server (makeServer) on a `ws` WebSocketServer. This is what graphql-ws's own
// `graphql-ws/use/ws` does, written for sockets that idle for hours, each of which costs memory for as long:
// - one keep-alive timer for all sockets, not an interval and a pong timeout per socket;
// - a message is handed over parsed and the Buffer it came in is let go: `use/ws` awaits the protocol
//   handler inside the listener, and the handler of a `subscribe` message returns only when the subscription
//   ends, so every subscription kept its raw frame and a suspended listener;
// - the upgrade request is whatever the caller puts in `extra` (websocket.ts keeps one header of it).
// Together ~2 KB less per idle subscriber with a socket of its own (bench/memory.ts subscribers).
// And for what a client sends or fails to read, which `use/ws` trusts: a message graphql-ws would throw on, or
// an operation id of any length, closes the socket with 4400 and one debug line rather than 4500 and a stack;
// a reader whose unread output passes a bound is closed with 4413 rather than buffered for.

import type { Server } from 'graphql-ws';
import { CloseCode, handleProtocols } from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { busyInterval } from '../shared/busy-interval.js';
import { CLOSE_GOING_AWAY, CLOSE_PROTOCOL_VIOLATION, CLOSE_SLOW_READER } from '../errors/close-codes.js';

/** graphql-ws's default: a socket that has not answered a ping by the next one is cut. */
export const KEEP_ALIVE_MS = 12_000;

/** The longest operation id accepted; graphql-ws sets none, and every open operation keeps its id. */
export const MAX_OPERATION_ID_LENGTH = 128;

/** Message types only a server sends. graphql-ws throws on them (a 4500 and an error log): a client's mistake. */
const SERVER_ONLY_TYPES = new Set(['connection_ack', 'next', 'error']);

/** As `use/ws`: the error's message outside production (close reasons are limited to 123 bytes). */
function internalErrorReason(error: unknown): string {
  if (process.env.NODE_ENV === 'production') return 'Internal server error';
  const message = error instanceof Error ? error.message : String(error);
  return Buffer.byteLength(message) > 123 ? 'Internal server error' : message;
}

/** Where the adapter reports: the gateway's logger (redacted, structured). */
export interface AdapterLog {
  /** What should not happen: a fault of the gateway, with its stack. */
  error(fields: object, message: string): void;
  /** A client that broke the protocol: one line, no stack (clients must not be able to fill the error log). */
  debug(fields: object, message: string): void;
}

export interface AdapterOptions {
  keepAliveMs?: number;
  /** WS_MAX_BUFFERED_BYTES */
  maxBufferedBytes?: number;
}

/**
 * The message graphql-ws gets, or the reason a socket is closed with 4400: what graphql-ws would refuse with a
 * 4500 and a stack in the log, or accept without bound. The parsed message is handed on as it is (graphql-ws
 * parses only strings and validates objects as they come), so each message is parsed once.
 */
function readClientMessage(text: string): { message: unknown } | { violation: string } {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { violation: 'Invalid message received' };
  }
  // graphql-ws parses a string again: a message encoded twice would reach it as the inner message.
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { violation: 'Invalid message received' };
  const { type, id } = message as { type?: unknown; id?: unknown };
  if (typeof type === 'string' && SERVER_ONLY_TYPES.has(type)) return { violation: `A client may not send ${type} messages` };
  if (typeof id === 'string' && id.length > MAX_OPERATION_ID_LENGTH) {
    return { violation: `Operation ids are at most ${MAX_OPERATION_ID_LENGTH} characters` };
  }
  return { message };
}

/** Serves graphql-ws on every connection of `wss`, with `extraOf(socket, upgrade)` as the context's `extra`. */
export function serveGraphqlWs<E, U>(
  wss: WebSocketServer,
  server: Server<E>,
  extraOf: (socket: WebSocket, upgrade: U) => E,
  log: AdapterLog,
  { keepAliveMs = KEEP_ALIVE_MS, maxBufferedBytes = Infinity }: AdapterOptions = {},
): { dispose(): Promise<void> } {
  // Only graphql-transport-ws is accepted at the handshake (graphql-ws closes others with 4406).
  wss.options.handleProtocols = handleProtocols;
  // Sockets that answered the last ping (or are new). Shared handlers: nothing per socket beyond its listeners.
  const alive = new WeakSet<WebSocket>();
  function onPong(this: WebSocket) {
    alive.add(this);
  }
  const keepAlive = busyInterval(
    () => wss.clients.size > 0,
    () => {
      for (const socket of wss.clients) {
        if (!alive.delete(socket)) {
          socket.terminate();
          continue;
        }
        if (socket.readyState === socket.OPEN) socket.ping();
      }
    },
    keepAliveMs,
  );

  wss.once('error', (error) => {
    log.error({ err: error }, 'websocket: internal error emitted on the WebSocket server');
    for (const socket of wss.clients) socket.close(CloseCode.InternalServerError, internalErrorReason(error));
  });

  wss.on('connection', (socket: WebSocket, upgrade: U) => {
    alive.add(socket);
    socket.on('pong', onPong);
    keepAlive.poke();
    // ws emits `error` on a server-side socket only for what the peer sent (a malformed frame, invalid UTF-8,
    // a message over maxPayload), and has already closed the socket with the matching code (1002, 1007, 1009).
    socket.once('error', (error: Error & { code?: string }) =>
      log.debug({ code: error.code, reason: error.message }, 'websocket: closed a socket that sent a malformed frame'),
    );
    let ended = false;
    const end = (code: number, reason: string) => {
      if (ended) return;
      ended = true;
      void closed(code, reason);
    };
    const closeSlowReader = () => {
      const reason = `Slow reader: over ${maxBufferedBytes} bytes of output waiting (WS_MAX_BUFFERED_BYTES)`;
      log.debug({ code: CLOSE_SLOW_READER, bufferedBytes: socket.bufferedAmount }, 'websocket: closed a slow reader');
      // The close frame waits behind the unread output; ws cuts the socket if the peer never reads it. The
      // subscriptions end now rather than then, so nothing more is produced for it.
      socket.close(CLOSE_SLOW_READER, reason);
      end(CLOSE_SLOW_READER, reason);
    };
    const closed = server.opened(
      {
        protocol: socket.protocol,
        // Checked before each message, so a single large result is never refused, only a backlog. A send that
        // fails finds a closing socket, whose `close` ends its operations: nothing else to do about it.
        send: (data) =>
          new Promise((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            if (socket.bufferedAmount > maxBufferedBytes) return resolve(closeSlowReader());
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data) => {
            const read = readClientMessage(String(data));
            if ('violation' in read) {
              log.debug({ code: CLOSE_PROTOCOL_VIOLATION, reason: read.violation }, 'websocket: closed a socket that broke the protocol');
              return socket.close(CLOSE_PROTOCOL_VIOLATION, read.violation);
            }
            // Typed as a string, but graphql-ws's parseMessage takes an object as parsed already.
            handle(read.message as string).catch((error: unknown) => {
              log.error({ err: error }, 'websocket: internal error while handling a message');
              socket.close(CloseCode.InternalServerError, internalErrorReason(error));
            });
          }),
      },
      extraOf(socket, upgrade),
    );
    socket.once('close', (code, reason) => end(code, String(reason)));
  });

  return {
    async dispose() {
      keepAlive.close();
      for (const socket of wss.clients) socket.close(CLOSE_GOING_AWAY, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
