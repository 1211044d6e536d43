import { expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs } from '../support/live.js';

import { liveTestWith } from './fixtures.js';

// Brands and regions change without any poller seeing it: a live result that reads them is read again every
// CATALOG_CACHE_TTL_MS even when every order in it is watched, and extensions.live says so. Before, such a
// dashboard never read its brands again until one of its orders changed.

const it = liveTestWith({ CACHE_TTL_MS: '60000', CATALOG_CACHE_TTL_MS: '300' });

const WITH_BRANDS = /* GraphQL */ `
  query Dashboard($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      gifts(first: 5) {
        edges {
          node {
            status
            brand {
              name
            }
          }
        }
      }
    }
  }
`;

const WITHOUT_BRANDS = /* GraphQL */ `
  query Statuses($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      gifts(first: 5) {
        edges {
          node {
            status
          }
        }
      }
    }
  }
`;

const refreshes = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^reward_gateway_live_query_resolutions_total\{[^}]*cause="refresh"[^}]*\} (\S+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
};

it('reads a result with brands again every CATALOG_CACHE_TTL_MS though its orders are watched, and says so', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
  const stream = subscribeWs(ws, WITH_BRANDS, { refs: [order.id] });
  const first = await stream.next();
  expect(first.extensions).toEqual({ live: { refreshMs: 300, unwatchedOrders: 0 } });
  const before = await refreshes(gw.url);
  await expect.poll(() => refreshes(gw.url), { timeout: 10_000 }).toBeGreaterThan(before);
  stream.close();
});

it('does not read a result again by time when a poller watches all it read', async ({ live: gw, ws }) => {
  const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
  const stream = subscribeWs(ws, WITHOUT_BRANDS, { refs: [order.id] });
  const first = await stream.next();
  expect(first.extensions).toBeUndefined();
  stream.close();
});
