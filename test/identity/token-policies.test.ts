import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { subscribeSse } from '../support/live.js';
import { startKeyIssuer, startOidcProvider, type KeyIssuer, type OidcProvider } from './issuers.js';

// What a token's caller is held to beyond its scopes: trusted documents for listed clients, and a live
// connection that ends when its token does.

const AUDIENCE = 'https://rewards.gateway.test';
const manifestPath = fileURLToPath(new URL('../../operations/__generated__/persisted-documents.json', import.meta.url));
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
const fundsWidget = Object.entries(manifest).find(([, doc]) => doc.includes('query FundsWidget'))![0];

let sandbox: TestSandbox;
let oidc: OidcProvider;
let bare: KeyIssuer;
let gateway: InProcessGateway;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  oidc = await startOidcProvider(AUDIENCE, ['web-app', 'mobile-app']);
  bare = await startKeyIssuer(AUDIENCE);
  gateway = createTestGateway(sandbox, {
    env: {
      AUTH_JWT_ISSUER: oidc.issuer,
      AUTH_JWT_AUDIENCE: AUDIENCE,
      AUTH_JWT_ISSUERS: JSON.stringify([{ issuer: bare.issuer, audience: AUDIENCE }]),
      TRUSTED_DOCUMENTS: manifestPath,
      AUTH_TRUSTED_ONLY_CLIENTS: 'mobile-app',
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), oidc?.close(), bare?.close()]);
});

async function post(token: string, body: object) {
  const res = await gateway.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: { extensions: { code: string } }[] };
}

describe('trusted-only clients', () => {
  it('a listed client runs only manifest documents, refused otherwise with the trusted-documents code', async () => {
    const mobile = await oidc.token('mobile-app', 'funds:read rewards:read');
    const arbitrary = await post(mobile, { query: '{ funds { balances { currency } } }' });
    expect(arbitrary.errors?.map((e) => e.extensions.code)).toEqual(['PERSISTED_QUERY_ONLY']);
    const listed = await post(mobile, { documentId: fundsWidget });
    expect(listed.errors).toBeUndefined();
    expect(listed.data?.funds).toBeDefined();
  });

  it('another client runs any document', async () => {
    const web = await oidc.token('web-app', 'funds:read');
    const arbitrary = await post(web, { query: '{ funds { balances { currency } } }' });
    expect(arbitrary.errors).toBeUndefined();
  });
});

/** Opens a graphql-transport-ws socket, sends connection_init with `authorization`, and reports how it closes. */
async function connectWith(url: string, authorization: string) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason), at: Date.now() })),
  );
  const acked = new Promise<boolean>((resolve) => {
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') resolve(true);
    });
    socket.once('close', () => resolve(false));
  });
  socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization } })));
  return { acked, closed };
}

// Concurrent: three of these wait one to two seconds each for a token to expire, and nothing here is shared
// but the gateway.
describe.concurrent('live connections', () => {
  it('a token in connection_init is verified: a refused one closes the socket with 4403', async () => {
    const url = await gateway.listen();
    const expired = await bare.sign({ sub: 'user-ws', scope: 'rewards:read' }, { expiresIn: Math.floor(Date.now() / 1000) - 5 });
    const { acked, closed } = await connectWith(url, `Bearer ${expired}`);
    expect(await acked).toBe(false);
    expect((await closed).code).toBe(4403);
  });

  it('closes the socket with 4401 "expired" when the token expires', async () => {
    const url = await gateway.listen();
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await bare.sign({ sub: 'user-ws', scope: 'rewards:read' }, { expiresIn: exp });
    const { acked, closed } = await connectWith(url, `Bearer ${token}`);
    expect(await acked).toBe(true);
    const end = await closed;
    expect(end.code).toBe(4401);
    expect(end.reason).toMatch(/expired/i);
    expect(end.at).toBeGreaterThanOrEqual(exp * 1000);
  });

  it('ends an SSE stream with an error saying the token expired', async () => {
    const url = await gateway.listen();
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await bare.sign({ sub: 'user-sse', scope: 'funds:read' }, { expiresIn: exp });
    const stream = subscribeSse<{ errors?: { message: string; extensions: { code: string; reason: string } }[] }>(
      url,
      'subscription { fundsChanged { __typename } }',
      undefined,
      { authorization: `Bearer ${token}` },
    );
    let result = await stream.next();
    while (!result.errors) result = await stream.next();
    expect(result.errors[0]!.extensions).toMatchObject({ code: 'INVALID_TOKEN', reason: 'expired' });
    expect(result.errors[0]!.message).toMatch(/expired/);
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
    expect(await stream.ended).toBe('complete');
  });

  it('ends an SSE live query with an error saying the token expired', async () => {
    const url = await gateway.listen();
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await bare.sign({ sub: 'user-sse', scope: 'funds:read' }, { expiresIn: exp });
    const stream = subscribeSse<{ data?: unknown; errors?: { extensions: { code: string; reason: string } }[] }>(
      url,
      'query @live { funds { balances { currency } } }',
      undefined,
      { authorization: `Bearer ${token}` },
    );
    expect((await stream.next()).data).toBeTruthy();
    let result = await stream.next();
    while (!result.errors) result = await stream.next();
    expect(result.errors[0]!.extensions).toMatchObject({ code: 'INVALID_TOKEN', reason: 'expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
    expect(await stream.ended).toBe('complete');
  });
});
