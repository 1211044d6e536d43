import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { gatewayOver } from '../support/gateway.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { test } from '../support/test.js';
import { startQuirksServer, type Recorded } from '../upstream/quirks-server.js';
import { FORMS } from './secret-forms.js';

// An upstream that echoes the token it receives in every form a leak can take (secret-forms.ts): in the
// message of an error it answers, and in the fields of answers it gives with status 200 (an order's message
// and subject, a gift's links and recipient). Nothing of it may reach a client, over HTTP or WebSocket, a log
// line or /metrics. A client's API key used as an operation name must not reach /metrics either.

const TOKEN = `tok/en+SECRET=${randomBytes(12).toString('hex')}`;
/** A key that is also a valid GraphQL name, so a client can name an operation with it. */
const KEY = `gwk_live_${randomBytes(16).toString('hex')}`;
const AUTH = { authorization: `Bearer ${KEY}` };

const echoed = (req: Recorded, form: number) => FORMS[form]![1](String(req.headers.authorization).slice('Bearer '.length));
const formOf = (req: Recorded) => Number(/(\d+)$/.exec(req.url)![1]);

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const rejection = (req: Recorded, res: ServerResponse) =>
  send(res, 409, { error: { code: 'ERROR_CONFLICT', message: `order taken by ${echoed(req, formOf(req))}` }, status: 409 });

const campaign = (req: Recorded, res: ServerResponse) => {
  const leak = echoed(req, formOf(req));
  send(res, 200, {
    campaign: {
      id: req.url.split('/').pop(),
      uuid: 'c-uuid-1',
      status: 'CAMPAIGN_CREATED',
      delivery_type: 'ACME_EMAIL',
      message: `<p>Thanks! ${leak}</p>`,
      subject: leak,
      contacts: [],
      price_in_cents: 2500,
      brand_codes: ['AMAZONUS'],
    },
  });
};

const gift = (req: Recorded, res: ServerResponse) => {
  const leak = echoed(req, formOf(req));
  send(res, 200, {
    gift: {
      uuid: req.url.split('/').pop(),
      campaign_uuid: 'c-uuid-1',
      campaign_id: 'order-1',
      status: 'SENT_AND_REDEEMABLE',
      delivery_status: 'DELIVERED',
      price_in_cents: 2500,
      brand_code: 'AMAZONUS',
      recipient_name: leak,
      redelivery_count: 0,
      management_dashboard_link: `https://dash.example/g?token=${leak}`,
      shortlink: leak,
    },
  });
};

const query = (form: number) =>
  `{ rejected: campaign(ref: "rejected-${form}") { uuid } ` +
  `order: campaign(ref: "order-${form}") { message subject } ` +
  `gift(uuid: "gift-${form}") { recipientName managementDashboardLink shortlink } }`;

const logLines: string[] = [];

// Lifetime: the file. The echoing upstream, and a gateway over it listening at `url` (WebSocket, SSE and
// /metrics are part of what is checked), logging at trace into logLines.
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
const it = test.extend('url', { scope: 'file' }, async ({}, { onCleanup }) => {
  const upstream = await startQuirksServer();
  FORMS.forEach((_, form) => {
    upstream.on(`GET /campaign/rejected-${form}`, rejection);
    upstream.on(`GET /campaign/order-${form}`, campaign);
    upstream.on(`GET /gifts/gift-${form}`, gift);
  });
  const gateway = gatewayOver(
    { baseUrl: upstream.baseUrl, token: TOKEN },
    {
      env: { LOG_LEVEL: 'trace', GATEWAY_API_KEYS: JSON.stringify([{ name: 'echo-test', key: KEY, scopes: ['rewards:read'] }]) },
      logTo: { write: (line: string) => void logLines.push(line) },
    },
  );
  onCleanup(async () => {
    await gateway.close();
    await upstream.close();
  });
  return gateway.listen();
});

/** No form of the token or the key, and no 8 characters of either in any case. */
function expectNoLeak(text: string, where: string): void {
  for (const secret of [TOKEN, KEY]) {
    for (const [name, encode] of FORMS) expect(text, `${where}: ${name}`).not.toContain(encode(secret));
    for (let i = 0; i + 8 <= secret.length; i++) expect(text.toLowerCase(), where).not.toContain(secret.slice(i, i + 8).toLowerCase());
  }
}

async function post(url: string, body: object): Promise<{ json: any; text: string }> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...AUTH },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expectNoLeak(JSON.stringify([...res.headers]), 'response headers');
  return { json: JSON.parse(text), text };
}

describe('an upstream echoing the token in every form, in errors and in 200 answers', () => {
  FORMS.forEach(([name], form) => {
    it(`over HTTP: ${name}`, async ({ url }) => {
      const { json, text } = await post(url, { query: query(form) });
      expectNoLeak(text, name);
      // The upstream's answers did arrive, redacted where the token was (the test would pass vacuously otherwise).
      expect(json.errors).toEqual([
        expect.objectContaining({ path: ['rejected'], extensions: expect.objectContaining({ code: 'UPSTREAM_REJECTED' }) }),
      ]);
      expect(json.errors[0].message).toContain('[redacted]');
      expect(json.data.order.message).toMatch(/^<p>Thanks! .*\[redacted\].*<\/p>$/);
      for (const field of [json.data.order.subject, json.data.gift.recipientName, json.data.gift.shortlink]) expect(field).toContain('[redacted]');
      expect(json.data.gift.managementDashboardLink).toMatch(/^https:\/\/dash\.example\/g\?token=.*\[redacted\]/);
    });
  });

  it('over WebSocket the same', async ({ url }) => {
    const ws = wsClient(url, { connectionParams: { authorization: AUTH.authorization } });
    try {
      for (let form = 0; form < FORMS.length; form++) {
        const stream = subscribeWs(ws, query(form));
        await stream.ended;
        expect(stream.received).toHaveLength(1);
        expect(JSON.stringify(stream.received)).toContain('[redacted]');
        expectNoLeak(JSON.stringify(stream.received), `WebSocket, ${FORMS[form]![0]}`);
      }
    } finally {
      await ws.dispose();
    }
  });

  it('over SSE the same', async ({ url }) => {
    for (let form = 0; form < FORMS.length; form++) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...AUTH },
        body: JSON.stringify({ query: query(form) }),
      });
      const events = await res.text();
      expect(events).toContain('event: next');
      expect(events).toContain('[redacted]');
      expectNoLeak(events, `SSE, ${FORMS[form]![0]}`);
    }
  });

  it('an API key used as the operation name stays out of /metrics and the logs', async ({ url }) => {
    const { json } = await post(url, { query: `query ${KEY} { __typename }` });
    expect(json.data).toEqual({ __typename: 'Query' });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('operation_name="[redacted]"');
    expectNoLeak(metrics, '/metrics');
  });

  it('nothing in the logs or /metrics', async ({ url }) => {
    expect(logLines.length).toBeGreaterThan(FORMS.length);
    expectNoLeak(logLines.join('\n'), 'logs');
    expectNoLeak(await (await fetch(`${url}/metrics`)).text(), '/metrics');
  });
});
