import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionsSettings } from '../ops/config.js';

// What one client can make the HTTP server hold, set on purpose rather than left to Node's defaults (which
// check timeouts only every 30 s and accept connections without bound).

export function httpServerOptions(config: ConnectionsSettings): ServerOptions {
  return {
    // A client trickling its headers (slowloris) is answered 408 and closed once this has passed since its
    // first byte, however steadily it sends.
    headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    // Node enforces the two timeouts above only when it checks its connections (every 30 s by default): a
    // quarter of the headers timeout keeps the overshoot small, and at most a second.
    connectionsCheckingInterval: Math.max(1, Math.min(1_000, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 4))),
  };
}

/**
 * Node runs the check of the two timeouts from `listen()` to `close()`, connections or not: at a second, it was
 * what woke an idle gateway (peers on Node's 30 s default wake 30 times less). Here it stops when the last
 * connection closes and starts again with the next one, which a slow client needs before it can be slow.
 *
 * Node has no switch for it, so this finds the interval and its starter by Node's own names (Node 20 to 24). A
 * Node that names them otherwise keeps its check running as before: safe, only not idle, and the idle test of
 * test/ops/main-process.test.ts says so.
 */
export function checkConnectionsOnlyWhileOpen(server: Server): void {
  const start = server.listeners('listening').find((listener) => listener.name === 'setupConnectionsTracking');
  let interval: symbol | undefined;
  let open = 0;
  const pause = () => {
    if (interval) clearInterval((server as unknown as Record<symbol, NodeJS.Timeout | undefined>)[interval]);
  };
  // After Node's own listener, which started the check.
  server.on('listening', () => {
    interval = Object.getOwnPropertySymbols(server).find((key) => key.description === 'http.server.connectionsCheckingInterval');
    if (open === 0) pause();
  });
  server.on('connection', (socket: Socket) => {
    if (open++ === 0 && interval && start) start.call(server);
    socket.once('close', () => {
      if (--open === 0) pause();
    });
  });
}
