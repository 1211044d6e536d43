import type { ServerOptions } from 'node:http';
import type { Config } from './config.js';

// What one client can make the HTTP server hold, set on purpose rather than left to Node's defaults (which
// check timeouts only every 30 s and accept connections without bound).

export function httpServerOptions(config: Config): ServerOptions {
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
