// graphql-ws's protocol server (makeServer) on a `ws` WebSocketServer. This is what graphql-ws's own
// `graphql-ws/use/ws` does, written for sockets that idle for hours, each of which costs memory for as long:
// - one keep-alive timer for all sockets, not an interval and a pong timeout per socket;
// - a message is handed over as a string and the Buffer it came in is let go: `use/ws` awaits the protocol
//   handler inside the listener, and the handler of a `subscribe` message returns only when the subscription
//   ends, so every subscription kept its raw frame and a suspended listener;
// - the upgrade request is whatever the caller puts in `extra` (websocket.ts keeps one header of it).
// Together ~2 KB less per idle subscriber with a socket of its own (bench/memory.ts subscribers).

import type { Server } from 'graphql-ws';
import { CloseCode, handleProtocols } from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';

/** graphql-ws's default: a socket that has not answered a ping by the next one is cut. */
export const KEEP_ALIVE_MS = 12_000;

/** As `use/ws`: the error's message outside production (close reasons are limited to 123 bytes). */
function internalErrorReason(error: unknown): string {
  if (process.env.NODE_ENV === 'production') return 'Internal server error';
  const message = error instanceof Error ? error.message : String(error);
  return Buffer.byteLength(message) > 123 ? 'Internal server error' : message;
}

/** Where the adapter reports what should not happen: the gateway's logger (redacted, structured). */
export interface AdapterLog {
  error(fields: object, message: string): void;
}

function closeOnError(log: AdapterLog, socket: WebSocket, what: string, error: unknown): void {
  log.error({ err: error }, what);
  socket.close(CloseCode.InternalServerError, internalErrorReason(error));
}

/** Serves graphql-ws on every connection of `wss`, with `extraOf(socket, upgrade)` as the context's `extra`. */
export function serveGraphqlWs<E, U>(
  wss: WebSocketServer,
  server: Server<E>,
  extraOf: (socket: WebSocket, upgrade: U) => E,
  log: AdapterLog,
  keepAliveMs = KEEP_ALIVE_MS,
): { dispose(): Promise<void> } {
  // Only graphql-transport-ws is accepted at the handshake (graphql-ws closes others with 4406).
  wss.options.handleProtocols = handleProtocols;
  // Sockets that answered the last ping (or are new). Shared handlers: nothing per socket beyond its listeners.
  const alive = new WeakSet<WebSocket>();
  function onPong(this: WebSocket) {
    alive.add(this);
  }
  const keepAlive = setInterval(() => {
    for (const socket of wss.clients) {
      if (!alive.delete(socket)) {
        socket.terminate();
        continue;
      }
      if (socket.readyState === socket.OPEN) socket.ping();
    }
  }, keepAliveMs);
  keepAlive.unref();

  wss.once('error', (error) => {
    log.error({ err: error }, 'websocket: internal error emitted on the WebSocket server');
    for (const socket of wss.clients) socket.close(CloseCode.InternalServerError, internalErrorReason(error));
  });

  wss.on('connection', (socket: WebSocket, upgrade: U) => {
    alive.add(socket);
    socket.on('pong', onPong);
    socket.once('error', (error) => closeOnError(log, socket, 'websocket: internal error emitted on a socket', error));
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data) => {
            handle(String(data)).catch((error: unknown) => closeOnError(log, socket, 'websocket: internal error while handling a message', error));
          }),
      },
      extraOf(socket, upgrade),
    );
    socket.once('close', (code, reason) => void closed(code, String(reason)));
  });

  return {
    async dispose() {
      clearInterval(keepAlive);
      for (const socket of wss.clients) socket.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
