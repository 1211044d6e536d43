import { RequestCache } from '@pothos/plugin-scope-auth';
import { afterEach, expect, vi } from 'vitest';
import { subscribeWs } from '../support/live.js';
import { liveTestWith } from './fixtures.js';

// Each resolution of a live query runs with a context of its own, below the plugins' hooks, and scope auth caches
// its checks under that context in a WeakMap whose values V8's scavenger keeps alive (and the round's loaders and
// answers with them: src/edge/use-scope-cache-release.ts). Each round drops its cache when it is done, while the
// live query stays open; the operation's own context is dropped when its stream ends.

const it = liveTestWith({ CACHE_TTL_MS: '200' });

const BALANCES = 'query Balances @live { funds { balances { currency availableInCents } } }';

afterEach(() => vi.restoreAllMocks());

it('drops the scope cache of each round of a live query while it stays open', async ({ ws }) => {
  const released = vi.spyOn(RequestCache, 'clearForContext');
  const stream = subscribeWs(ws, BALANCES);
  await stream.next();
  // The balances are resolved again every CACHE_TTL_MS (sent only when they change): rounds while it is open.
  await vi.waitFor(() => expect(released.mock.calls.length).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 50 });
  const rounds = released.mock.calls.map(([context]) => context);
  // A context each round: never the same one twice.
  expect(new Set(rounds).size).toBe(rounds.length);
  stream.close();
});
