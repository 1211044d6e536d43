import { expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs } from '../support/live.js';

import { liveTestWith } from './fixtures.js';

// The bounds of live queries: LIVE_QUERY_MAX_PER_KEY open at once per API key, LIVE_QUERY_MAX_WATCHED_ORDERS
// orders watched by pollers per live query (the rest refreshed every CACHE_TTL_MS, as extensions.live says).

const it = liveTestWith({ CACHE_TTL_MS: '60000', LIVE_QUERY_MAX_PER_KEY: '2', LIVE_QUERY_MAX_WATCHED_ORDERS: '1' });

const ORDERS = /* GraphQL */ `
  query Orders($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      status
    }
  }
`;

it('refuses a live query past LIVE_QUERY_MAX_PER_KEY, and admits one again once another ends', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
  const open = () => subscribeWs(ws, ORDERS, { refs: [order.id] });
  const [a, b] = [open(), open()];
  await Promise.all([a.next(), b.next()]);
  const refused = await open().next();
  expect(refused).toMatchObject({
    errors: [{ extensions: { code: 'LIVE_QUERIES_PER_KEY_EXCEEDED', limit: 2 } }],
  });
  a.close();
  // The release reaches the store once graphql-ws has completed the operation on the server.
  await expect.poll(async () => (await open().next()).errors).toBeUndefined();
  b.close();
});

it('watches LIVE_QUERY_MAX_WATCHED_ORDERS orders of a result, and says the rest are refreshed by TTL', async ({ live: gw, ws }) => {
  const [one, two] = [await createEmailOrder(gw.sandbox, { recipients: 1 }), await createEmailOrder(gw.sandbox, { recipients: 1 })];
  const stream = subscribeWs(ws, ORDERS, { refs: [one.id, two.id] });
  const first = await stream.next();
  expect(first.extensions).toEqual({ live: { refreshMs: 60000, unwatchedOrders: 1 } });
  await gw.watch.until(() => gw.watch.completed(`campaign:${one.uuid}`) >= 1);
  expect(gw.watch.startedCount(`campaign:${two.uuid}`)).toBe(0);
  stream.close();
});
