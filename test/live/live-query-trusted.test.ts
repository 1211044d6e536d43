import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs } from '../support/live.js';

import { liveTestWith } from './fixtures.js';

// In trusted-documents mode a trusted document may carry @live: sent by its id, it runs live like any other.

const LIVE = 'query Orders($refs: [ID!]!) @live { campaigns(refs: $refs) { id status } }';
const ID = 'sha256:live-orders';

function manifest(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'live-trusted-')), 'manifest.json');
  writeFileSync(path, JSON.stringify({ [ID]: LIVE }));
  return path;
}

const it = liveTestWith({ CACHE_TTL_MS: '60000', TRUSTED_DOCUMENTS: manifest() });

it('runs a trusted document that carries @live, with patches, and refuses the same document sent as text', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
  const stream = subscribeWs(ws, '', { refs: [order.id] }, { documentId: ID, extensions: { livePatch: 'json-patch' } });
  expect(await stream.next()).toEqual({ data: { campaigns: [{ id: order.id, status: 'CREATED' }] }, revision: 1 });
  stream.close();
  const refused = subscribeWs(ws, LIVE, { refs: [order.id] });
  await refused.ended;
  expect(JSON.stringify(refused.error ?? refused.received)).toMatch(/PERSISTED_QUERY_ONLY/);
});
