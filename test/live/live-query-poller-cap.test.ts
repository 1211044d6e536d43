import { expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs } from '../support/live.js';

import { liveTestWith } from './fixtures.js';

// An order a live query would watch, but the replica's pollers are all taken (LIVE_MAX_POLLERS): it is
// refreshed every CACHE_TTL_MS like one past LIVE_QUERY_MAX_WATCHED_ORDERS, and extensions.live says so.

const it = liveTestWith({ CACHE_TTL_MS: '60000', LIVE_MAX_POLLERS: '1' });

const ORDERS = /* GraphQL */ `
  query Orders($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      status
    }
  }
`;

it('says how many of its orders LIVE_MAX_POLLERS left unwatched', async ({ live: gw, ws }) => {
  const [one, two] = [await createEmailOrder(gw.sandbox, { recipients: 1 }), await createEmailOrder(gw.sandbox, { recipients: 1 })];
  const stream = subscribeWs(ws, ORDERS, { refs: [one.id, two.id] });
  await stream.next();
  const refused = await stream.next();
  expect(refused.extensions).toEqual({ live: { refreshMs: 60000, unwatchedOrders: 1, overPollerCap: 1 } });
  stream.close();
});
