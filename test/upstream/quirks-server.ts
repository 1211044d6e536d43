// A tiny node:http server that answers the way production was recorded to answer on its odd days: HTML error
// pages, a 401 in JSON with an HTML content type, misspelled codes, both cancel spellings, DST-edge dates, extra
// fields. Each test scripts the answers per route; every request is recorded for header assertions.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: equal ports on two requests mean a reused keep-alive connection. */
  remotePort: number | undefined;
}

export type Handler = (req: Recorded, res: ServerResponse) => void;

export interface QuirksServer {
  baseUrl: string;
  requests: Recorded[];
  /** Answers "METHOD /path" (path without query) with the handlers in turn; the last one repeats. */
  on(route: string, ...handlers: Handler[]): void;
  /** Resolves when the n-th request (1-based) has arrived. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

export const raw =
  (status: number, contentType: string, body: string, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(body);
  };

/** Drops the connection without an answer. */
export const reset: Handler = (_req, res) => {
  res.socket?.destroy();
};

/** Never answers (until the server closes). */
export const hang: Handler = () => {};

export const HTML_503 =
  '<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>';

export async function startQuirksServer(): Promise<QuirksServer> {
  const routes = new Map<string, Handler[]>();
  const requests: Recorded[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      requests.push(rec);
      for (const w of waiters.filter((w) => requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const key = `${rec.method} ${rec.url.split('?')[0]}`;
      const handlers = routes.get(key);
      if (!handlers || handlers.length === 0) return json(404, { error: { code: 'ERROR_NOT_FOUND' }, status: 404 })(rec, res);
      const handler = handlers.length > 1 ? handlers.shift()! : handlers[0]!;
      handler(rec, res);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/papi/v1`,
    requests,
    on: (route, ...handlers) => {
      routes.set(route.replace(' ', ' /papi/v1'), handlers);
    },
    arrived: (n) => (requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
