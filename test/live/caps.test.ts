import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { requestDelta, subscribeSse, subscribeWs, type ResultStream } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// Watching is bounded: an API key watches at most LIVE_MAX_WATCHED_PER_KEY orders, a replica at most
// LIVE_MAX_POLLERS keys, and each refusal has its own code; a crowd subscribing to one new order at once costs
// one lookup of it, not one per subscriber.

const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID) {
    giftStatusChanged(campaign: $campaign) {
      gift {
        uuid
      }
    }
  }
`;
const FUNDS = /* GraphQL */ `
  subscription {
    fundsChanged {
      cursor
    }
  }
`;
const CROWD = 600;

// Two live gateways (each with a sandbox of its own), started on first use and closed after the file's last
// test, each after its WebSocket clients: `live` with the watching caps and `capped` with the per-key cap.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) =>
    liveGatewayFor(onCleanup, { env: { LIVE_MAX_WATCHED_PER_KEY: '2', LIVE_MAX_POLLERS: '3' } }),
  )
  .extend('clients', { scope: 'file' }, ({ live }, { onCleanup }) => wsClientsFor(onCleanup, live, 6))
  // eslint-disable-next-line no-empty-pattern -- as above
  .extend('capped', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup, { env: { LIVE_MAX_SUBSCRIPTIONS_PER_KEY: '3' } }))
  .extend('socket', { scope: 'file' }, ({ capped }, { onCleanup }) => wsClientsFor(onCleanup, capped, 1)[0]!);

/** The code of the error a refused subscription answered with (graphql-ws sends it as a result, then completes). */
const codeOf = (stream: ResultStream) => stream.received[0]?.errors?.[0]?.extensions?.code as string | undefined;

describe('caps on watching', () => {
  it('refuses a third order for one API key (WATCH_LIMIT_EXCEEDED) and a fourth key on a full replica (LIVE_CAPACITY_EXCEEDED)', async ({
    live: gw,
    clients,
  }) => {
    const orders = await Promise.all([1, 2, 3].map(() => createEmailOrder(gw.sandbox, { recipients: 1 })));
    const a = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: orders[0]!.id });
    const a2 = subscribeWs(clients[1]!, GIFT_CHANGES, { campaign: orders[0]!.id });
    const b = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: orders[1]!.id });
    await gw.watch.until(() => gw.gateway.live.stats().subscribers === 3);

    const c = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: orders[2]!.id });
    expect(await c.ended).toBe('complete');
    expect(codeOf(c)).toBe('WATCH_LIMIT_EXCEEDED');

    // The funds key is not an order: it takes the replica's third and last poller.
    const funds = subscribeWs(clients[0]!, FUNDS);
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 3);
    a.close();
    // a2 still watches the first order: the key's count is unchanged.
    const stillRefused = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: orders[2]!.id });
    expect(await stillRefused.ended).toBe('complete');
    expect(codeOf(stillRefused)).toBe('WATCH_LIMIT_EXCEEDED');

    a2.close();
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 2);
    // Room for the key again; the replica has a poller free again too.
    const admitted = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: orders[2]!.id });
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 3);
    expect(admitted.received).toEqual([]);

    // The replica's cap: orders[2], funds and the account feed fill it; a new order is within the key's cap
    // but the replica has no poller left, and the refused subscription does not count against the key.
    b.close();
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 2);
    const account = subscribeWs(clients[0]!, GIFT_CHANGES, {});
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 3);
    const fourth = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const full = subscribeWs(clients[1]!, GIFT_CHANGES, { campaign: fourth.id });
    expect(await full.ended).toBe('complete');
    expect(codeOf(full)).toBe('LIVE_CAPACITY_EXCEEDED');
    account.close();
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 2);
    const room = subscribeWs(clients[1]!, GIFT_CHANGES, { campaign: fourth.id });
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 3);
    expect(room.received).toEqual([]);
    for (const s of [admitted, room, funds]) s.close();
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 0);
  });

  it(`${CROWD} concurrent subscribes to one new order cost one lookup of it`, async ({ live: gw, clients }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const before = await gw.sandbox.control.stats();
    const crowd = Array.from({ length: CROWD }, (_, i) => subscribeWs(clients[i % clients.length]!, GIFT_CHANGES, { campaign: order.id }));
    await gw.watch.until(() => gw.gateway.live.stats().subscribers === CROWD);
    await gw.watch.polls(`campaign:${order.uuid}`, 1);
    const delta = requestDelta(before, await gw.sandbox.control.stats());
    // One lookup by the caller's id, and the poller's one read of the order: `before` reached the sandbox, which
    // finished creating the order then, so the baseline saw it created with every reward, and the polls after it
    // read only its open rewards. A subscriber arriving while the baseline is under way must cost no lookup.
    expect(delta['GET /campaign/:id']).toBe(2);
    for (const s of crowd) s.close();
  });
});

describe('subscriptions per API key (LIVE_MAX_SUBSCRIPTIONS_PER_KEY)', () => {
  const STATUS = 'subscription ($ref: ID!) { campaignStatusChanged(ref: $ref) { cursor } }';

  it('counts every live root field over WebSocket and SSE alike, and gives a place back when one ends', async ({ capped, socket }) => {
    const order = await createEmailOrder(capped.sandbox, { recipients: 1 });
    // A subscription that finds no order never held a place.
    const unknown = subscribeWs(socket, STATUS, { ref: 'no-such-order' });
    expect(await unknown.ended).toBe('complete');
    expect(codeOf(unknown)).toBe('NOT_FOUND');

    const funds = subscribeWs(socket, FUNDS);
    const account = subscribeSse(capped.url, GIFT_CHANGES, {});
    const gifts = subscribeWs(socket, GIFT_CHANGES, { campaign: order.id });
    await capped.watch.until(() => capped.gateway.live.stats().subscribers === 3);

    for (const refused of [subscribeWs(socket, FUNDS), subscribeSse(capped.url, STATUS, { ref: order.id })]) {
      expect(await refused.ended).toBe('complete');
      expect(codeOf(refused)).toBe('SUBSCRIPTIONS_PER_KEY_EXCEEDED');
      const error = refused.received[0]?.errors?.[0];
      expect(error?.message).toMatch(/maximum of 3 subscriptions .*LIVE_MAX_SUBSCRIPTIONS_PER_KEY/);
      expect(error?.extensions?.limit).toBe(3);
    }
    expect(capped.gateway.live.stats().subscribers).toBe(3);

    account.close();
    await capped.watch.until(() => capped.gateway.live.stats().subscribers === 2);
    const again = subscribeSse(capped.url, FUNDS);
    await capped.watch.until(() => capped.gateway.live.stats().subscribers === 3);
    expect(again.received).toEqual([]);
    for (const s of [funds, gifts, again]) s.close();
    await capped.watch.until(() => capped.gateway.live.stats().subscribers === 0);
  });
});
