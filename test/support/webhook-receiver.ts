import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on loopback: it records every request it gets, answers with the statuses a test queues
// (200 once the queue is empty), and lets a test wait for a number of requests instead of for time.

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it was answered with. */
  status: number;
}

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:40123 (any path is accepted). */
  url: string;
  received: ReceivedRequest[];
  /** Requests answered 2xx, in the order they came. */
  accepted(): ReceivedRequest[];
  /** The next requests are answered with these statuses, in order. */
  answer(...statuses: number[]): void;
  /** Every request is answered with this status until changed (null: back to 200). */
  answerAlways(status: number | null): void;
  /** Resolves once `ready()` holds, checked after each request. */
  until(ready: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const queued: number[] = [];
  let always: number | null = null;
  let waits: { ready: () => boolean; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = queued.shift() ?? always ?? 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
      waits = waits.filter((wait) => (wait.ready() ? (wait.resolve(), false) : true));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    accepted: () => received.filter((r) => r.status >= 200 && r.status < 300),
    answer: (...statuses) => queued.push(...statuses),
    answerAlways: (status) => (always = status),
    until: (ready) => (ready() ? Promise.resolve() : new Promise((resolve) => waits.push({ ready, resolve }))),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
