import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionsSettings } from '../ops/config.js';
import { checkConnectionsOnlyWhileOpen, httpServerOptions } from './http-server-options.js';

// The Node server of the gateway's one port: made with its limits, listening, and closed. What it serves (the
// HTTP entry, yoga, the WebSocket endpoint on the same server) is wired by src/app.ts.

export interface GatewayServer {
  server: Server;
  /** Listens on host:port (0 for ephemeral) and returns the base URL: loopback for the wildcard address. */
  listen(port: number, host: string): Promise<string>;
  /**
   * Stops accepting and closes the idle connections now; cuts every connection still open when `deadline`
   * aborts. Resolves once the last connection has closed.
   */
  close(deadline: AbortSignal): Promise<void>;
}

export function createGatewayServer(config: ConnectionsSettings, handle: RequestListener): GatewayServer {
  const server = createServer(httpServerOptions(config), handle);
  checkConnectionsOnlyWhileOpen(server);
  // Beyond it new connections (HTTP and WebSocket alike) are closed at once, before anything is read.
  server.maxConnections = config.HTTP_MAX_CONNECTIONS;
  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const { port: bound } = server.address() as AddressInfo;
          const shown = host.includes(':') ? `[${host}]` : host;
          resolve(`http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${bound}`);
        });
      }),
    close(deadline) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cut = () => server.closeAllConnections();
      if (deadline.aborted) cut();
      else deadline.addEventListener('abort', cut, { once: true });
      server.closeIdleConnections();
      return closed;
    },
  };
}
