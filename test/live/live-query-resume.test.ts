import { applyJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs } from '../support/live.js';

import { liveTestWith } from './fixtures.js';

// A client that reconnects with the revision and the hash of the result it holds (`"liveResume"`) gets a patch
// from that result when the replica still has it among its last results, an empty patch when nothing changed,
// and otherwise the whole result as revision 1: never a patch against a base it does not hold.

const it = liveTestWith({ CACHE_TTL_MS: '60000' });

const DASHBOARD = /* GraphQL */ `
  query Dashboard($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      gifts(first: 10) {
        edges {
          node {
            uuid
            status
          }
        }
      }
    }
  }
`;

const resumable = (resume: unknown = true) => ({ extensions: { livePatch: 'json-patch', liveResume: resume } });

it('tags each payload with the hash of the result it makes, and patches a reconnect from the result it holds', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
  // Another viewer keeps the live query open on the replica while the client is away.
  const holder = subscribeWs(ws, DASHBOARD, { refs: [order.id] });
  const client = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, resumable());
  const [held, first] = await Promise.all([holder.next(), client.next()]);
  expect(first).toMatchObject({ data: held.data, revision: 1, extensions: { liveHash: expect.any(String) } });
  client.close();

  await gw.sandbox.control.redeem(held.data.campaigns[0].gifts.edges[0].node.uuid as string);
  // A payload may change only its extensions (a stale read under load): the redemption is the one that matters.
  let current = await holder.next();
  while (current.data.campaigns[0].gifts.edges[0].node.status !== 'REDEEMED') current = await holder.next();

  const back = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, resumable({ revision: 1, hash: first.extensions.liveHash }));
  const resumed = await back.next();
  expect(resumed).toMatchObject({ revision: 2, extensions: { liveHash: expect.any(String) } });
  expect(resumed.data).toBeUndefined();
  const rebuilt = applyJSONPatch(structuredClone(first.data), resumed.patch);
  expect(rebuilt).toEqual(current.data);
  expect(resumed.extensions.liveHash).not.toBe(first.extensions.liveHash);

  // Reconnecting with the result it holds now: an empty patch, the revision moving on.
  back.close();
  const again = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, resumable({ revision: 2, hash: resumed.extensions.liveHash }));
  expect(await again.next()).toEqual({ patch: [], revision: 3, extensions: { liveHash: resumed.extensions.liveHash } });
  again.close();
  holder.close();
});

it('answers a reconnect from a result it does not have with the whole result, as revision 1', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
  // Held already, so the reconnect waits for a read past the cache rather than getting the held result at once.
  const holder = subscribeWs(ws, DASHBOARD, { refs: [order.id] });
  await holder.next();
  const stream = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, resumable({ revision: 7, hash: 'not-a-result-of-this-replica' }));
  const first = await stream.next();
  expect(first).toMatchObject({ revision: 1, data: { campaigns: [{ id: order.id }] }, extensions: { liveHash: expect.any(String) } });
  expect(first.patch).toBeUndefined();
  stream.close();
  holder.close();
});

it('sends no hash to a client that did not ask to resume', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
  const stream = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, { extensions: { livePatch: 'json-patch' } });
  const first = await stream.next();
  expect(first.extensions).toBeUndefined();
  stream.close();
});
