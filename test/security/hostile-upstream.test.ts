import type { ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { gatewayOver } from '../support/gateway.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { test } from '../support/test.js';
import { startQuirksServer, type QuirksServer, type Recorded } from '../upstream/quirks-server.js';

// An upstream that echoes the Authorization header it receives in every field of every error it sends: the
// JSON envelope (code and message), the recorded `text` shape, an HTML 5xx page, and response headers, each
// whole, cut short, base64- and URL-encoded. None of those forms may reach a client (HTTP or WebSocket), a
// log line or a metric.

const TOKEN = 'tok/en+SECRET=value-0123456789abcdefXYZ';

/**
 * The forms a leak could take; each is a run that matters (docs/operations.md#secrets): 16 characters of
 * the token, or as many bytes in an encoding.
 */
const LEAKS = [
  TOKEN,
  TOKEN.slice(0, 16),
  TOKEN.slice(-16),
  Buffer.from(TOKEN).toString('base64').slice(0, 22),
  Buffer.from(`Bearer ${TOKEN}`).toString('base64').slice(12, 34),
  encodeURIComponent(TOKEN).slice(0, 22),
  encodeURIComponent(TOKEN).slice(-16),
];

function echoes(req: Recorded): string[] {
  const auth = String(req.headers.authorization);
  return [
    auth,
    auth.slice(0, 'Bearer '.length + 16),
    auth.slice(-16),
    Buffer.from(auth).toString('base64'),
    Buffer.from(auth.slice(7)).toString('base64'),
    encodeURIComponent(auth),
  ];
}

const envelope = (status: number) => (req: Recorded, res: ServerResponse) => {
  const all = echoes(req);
  res.writeHead(status, { 'content-type': 'application/json', 'x-echo': all[0]!, 'retry-after': all[0]! });
  res.end(JSON.stringify({ error: { code: all[0], message: all.join(' | '), name: all[3] }, status, text: all.join(' ') }));
};
const textShape = (status: number) => (req: Recorded, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-echo': echoes(req)[1]! });
  res.end(JSON.stringify({ status, text: echoes(req).join(' ') }));
};
const html = (status: number) => (req: Recorded, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'text/html', 'x-echo': echoes(req)[4]! });
  res.end(`<html><body><h1>${status}</h1><pre>${echoes(req).join('\n')}</pre></body></html>`);
};

const logLines: string[] = [];

// Lifetime: the file. The echoing upstream, and a gateway over it listening at `url` (WebSocket and /metrics
// are part of what is checked), logging at trace into logLines. The logger knows the token (as main.ts sets
// it up): its own scrubbing is the last line of defence.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('upstream', { scope: 'file' }, async ({}, { onCleanup }): Promise<QuirksServer> => {
    const upstream = await startQuirksServer();
    onCleanup(() => upstream.close());
    upstream.on('POST /funds', envelope(422));
    upstream.on('DELETE /gifts/g1', envelope(400));
    upstream.on('GET /funds', textShape(400));
    upstream.on('GET /campaign/a', envelope(409));
    upstream.on('GET /campaign/b', textShape(418));
    upstream.on('GET /regions', html(503));
    upstream.on('GET /ping', html(500));
    return upstream;
  })
  .extend('url', { scope: 'file' }, async ({ upstream }, { onCleanup }) => {
    const gateway = gatewayOver(
      { baseUrl: upstream.baseUrl, token: TOKEN },
      { env: { LOG_LEVEL: 'trace', UPSTREAM_RETRY_ATTEMPTS: '2' }, logTo: { write: (line: string) => void logLines.push(line) } },
    );
    onCleanup(() => gateway.close());
    return gateway.listen();
  });

const OPERATIONS = [
  'mutation { addFunds(input: { id: "t1", currency: "USD", amountInCents: 50000 }) { __typename ... on Error { message } ... on UpstreamRejected { code status } } }',
  'mutation { cancelGift(uuid: "g1") { __typename ... on Error { message } ... on UpstreamRejected { code status } } }',
  '{ funds { balances { currency } } }',
  '{ a: campaign(ref: "a") { uuid } }',
  '{ b: campaign(ref: "b") { uuid } }',
  '{ regions { name } }',
  '{ viewer { username } }',
];

function expectNoLeak(text: string): void {
  for (const leak of LEAKS) expect(text, `leaked ${leak}`).not.toContain(leak);
}

describe('an upstream echoing the credentials in its errors', () => {
  it('over HTTP: codes that do not look like codes become UPSTREAM_ERROR; free text is redacted', async ({ url, upstream }) => {
    const bodies: string[] = [];
    for (const query of OPERATIONS) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query }),
      });
      const text = await res.text();
      bodies.push(text);
      expectNoLeak(text);
      expectNoLeak(JSON.stringify([...res.headers]));
    }
    const [addFunds] = bodies.map((b) => JSON.parse(b));
    expect(addFunds.data.addFunds).toMatchObject({ __typename: 'UpstreamRejected', code: 'UPSTREAM_ERROR', status: 422 });
    const rejected = JSON.parse(bodies[3]!).errors[0];
    expect(rejected.extensions).toMatchObject({ code: 'UPSTREAM_REJECTED', upstreamCode: 'UPSTREAM_ERROR', upstreamStatus: 409 });
    // The upstream really did send the token back: the test would pass vacuously otherwise.
    expect(upstream.requests.length).toBeGreaterThanOrEqual(OPERATIONS.length);
  });

  it('over WebSocket the same', async ({ url }) => {
    const ws = wsClient(url);
    try {
      for (const query of OPERATIONS) {
        const stream = subscribeWs(ws, query);
        await stream.ended;
        expect(stream.received.length + (stream.error ? 1 : 0)).toBeGreaterThan(0);
        expectNoLeak(JSON.stringify(stream.received));
        expectNoLeak(JSON.stringify(stream.error ?? null));
      }
    } finally {
      await ws.dispose();
    }
  });

  it('in logs and metrics', async ({ url }) => {
    expect(logLines.length).toBeGreaterThan(0);
    expectNoLeak(logLines.join('\n'));
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expectNoLeak(metrics);
  });
});
