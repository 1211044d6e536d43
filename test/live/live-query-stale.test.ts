import { expect } from 'vitest';
import { subscribeWs } from '../support/live.js';

import { liveTestWith } from './fixtures.js';

// A live query's result built from cached answers given while the reward API fails says so, as a read's does
// (extensions.stale), and says so no more once the reward API answers again.

const it = liveTestWith({ CACHE_TTL_MS: '200', UPSTREAM_RETRY_ATTEMPTS: '1' });

const BALANCES = 'query Balances @live { funds { balances { currency availableInCents } } }';

it('marks a re-resolution from stale answers with extensions.stale, and the next fresh one without it', async ({ live: gw, ws }) => {
  const stream = subscribeWs(ws, BALANCES);
  const first = await stream.next();
  // The balances are watched by no poller: refreshed every CACHE_TTL_MS.
  expect(first.extensions).toEqual({ live: { refreshMs: 200, unwatchedOrders: 0 } });
  await gw.sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1 });
  const stale = await stream.next();
  expect(stale).toEqual({ data: first.data, extensions: { ...first.extensions, stale: true } });
  await gw.sandbox.control.clearFaults();
  expect(await stream.next()).toEqual(first);
  stream.close();
});
