import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'graphql';
import { describe, expect } from 'vitest';
import type { InProcessGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';

// Trusted-documents mode: only the operations in the codegen manifest run, by hash.

const manifestPath = fileURLToPath(new URL('../../operations/__generated__/persisted-documents.json', import.meta.url));
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
const idOf = (name: string) => Object.entries(manifest).find(([, doc]) => doc.includes(`query ${name}`))![0];

const it = testWith({ env: { TRUSTED_DOCUMENTS: manifestPath } });

async function send(gateway: InProcessGateway, body: unknown) {
  const res = await gateway.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('trusted documents', () => {
  it('the manifest holds every operation in operations/, keyed by its sha256', async () => {
    const { createHash } = await import('node:crypto');
    const names = Object.values(manifest).map((doc) => (parse(doc).definitions[0] as { name?: { value: string } }).name?.value);
    expect(names.sort()).toEqual([
      'AddFunds',
      'BrandPicker',
      'CampaignDashboard',
      'CancelReward',
      'CreateReward',
      'FindRewards',
      'FundsWidget',
      'GetOrder',
      'GetReward',
      'ReadBalances',
      'ResendReward',
    ]);
    for (const [id, doc] of Object.entries(manifest)) {
      expect(id).toBe(`sha256:${createHash('sha256').update(doc).digest('hex')}`);
    }
  });

  it('runs a listed operation by documentId, with or without the sha256: prefix', async ({ gateway }) => {
    const id = idOf('FundsWidget');
    for (const documentId of [id, id.replace('sha256:', '')]) {
      const res = await send(gateway, { documentId });
      expect(res.status).toBe(200);
      expect(res.body.data.funds.balances.length).toBeGreaterThan(0);
    }
  });

  it('accepts the Apollo persistedQuery extension too', async ({ gateway }) => {
    const res = await send(gateway, {
      extensions: { persistedQuery: { version: 1, sha256Hash: idOf('BrandPicker').replace('sha256:', '') } },
      variables: { first: 2 },
    });
    expect(res.body.data.brands.edges).toHaveLength(2);
  });

  it('refuses arbitrary queries and unknown ids, without calling the upstream', async ({ gateway }) => {
    await gateway.upstreamDelta();
    const arbitrary = await send(gateway, { query: '{ funds { balances { currency } } }' });
    expect(arbitrary.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await send(gateway, { documentId: `sha256:${'0'.repeat(64)}` });
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(await gateway.upstreamDelta()).toEqual({});
  });
});

describe('trusted documents over WebSocket', () => {
  it('applies the same allow-list to graphql-ws subscribe messages', async ({ gateway }) => {
    const { subscribeWs, wsClient } = await import('../support/live.js');
    const client = wsClient(await gateway.listen());
    try {
      const arbitrary = subscribeWs(client, '{ viewer { username } }');
      await arbitrary.ended;
      expect(JSON.stringify([arbitrary.received, arbitrary.error])).toContain('PERSISTED_QUERY_ONLY');

      const stream = subscribeWsWithDocumentId(client, idOf('FundsWidget'));
      const first = await stream.next();
      expect(first.data.funds.balances.length).toBeGreaterThan(0);
    } finally {
      await client.dispose();
    }

    function subscribeWsWithDocumentId(c: ReturnType<typeof wsClient>, documentId: string) {
      // graphql-ws sends the payload as given: a documentId instead of the query text.
      return subscribeWs(c, '', undefined, { documentId });
    }
  });

  it('refuses a query sent beside a documentId, and a payload naming no document, in the words HTTP uses', async ({ gateway }) => {
    const { subscribeWs, wsClient } = await import('../support/live.js');
    const payloads = [
      { query: '{ viewer { username } }', extra: { documentId: idOf('FundsWidget') } },
      { query: '', extra: {} },
    ];
    const client = wsClient(await gateway.listen());
    try {
      for (const { query, extra } of payloads) {
        const http = await send(gateway, { query: query || undefined, ...extra });
        expect(http.body.errors).toHaveLength(1);
        const ws = subscribeWs(client, query, undefined, extra);
        await ws.ended;
        expect(ws.error, query).toEqual([{ message: http.body.errors[0].message, extensions: { code: http.body.errors[0].extensions.code } }]);
      }
    } finally {
      await client.dispose();
    }
  });
});
