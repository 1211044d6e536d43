import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { requestDelta, subscribeWs, type LiveGateway, type ResultStream } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// One poller per watched order, whatever the number of subscribers: the upstream pays per order, not per
// client. Polls are counted through the hub's hooks, so the comparison does not depend on wall-clock time.

const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID) {
    giftStatusChanged(campaign: $campaign) {
      gift {
        uuid
        status
      }
      previousStatus
    }
  }
`;
const FUNDS = /* GraphQL */ `
  subscription {
    fundsChanged {
      funds {
        balances {
          currency
          availableInCents
        }
      }
    }
  }
`;
const POLLS = 5;
const SUBSCRIBERS = 200;
const CLIENTS = 10;

// The file's live gateway (a sandbox of its own) and its WebSocket clients; the clients are disposed before
// the gateway is closed, after the file's last test.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup))
  .extend('clients', { scope: 'file' }, ({ live }, { onCleanup }) => wsClientsFor(onCleanup, live, CLIENTS));

/** Upstream requests of one key's polls per poll, measured between two quiet moments `POLLS` polls apart. */
async function requestsPerPoll(gw: LiveGateway, key: string): Promise<Record<string, number>> {
  const first = await gw.quietStats(key);
  await gw.watch.polls(key, POLLS);
  const last = await gw.quietStats(key);
  const polls = last.polls - first.polls;
  expect(polls).toBeGreaterThanOrEqual(POLLS);
  return Object.fromEntries(Object.entries(requestDelta(first.stats, last.stats)).map(([route, n]) => [route, n / polls]));
}

describe('fan-out', () => {
  it(`${SUBSCRIBERS} subscribers on one order cost the upstream what one does, and nothing once they leave`, async ({ live: gw, clients }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const key = `campaign:${order.uuid}`;
    const gifts = (await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];

    const one = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: order.id });
    await gw.watch.until(() => gw.watch.completed(key) >= 1);
    const single = await requestsPerPoll(gw, key);
    // A created order with open rewards: one page of its open rewards per poll, nothing else.
    expect(single).toEqual({ 'GET /gifts': 1 });

    const many: ResultStream[] = [one];
    for (let i = 1; i < SUBSCRIBERS; i++) many.push(subscribeWs(clients[i % CLIENTS]!, GIFT_CHANGES, { campaign: order.id }));
    await gw.watch.until(() => gw.gateway.live.stats().subscribers === SUBSCRIBERS);
    expect(gw.gateway.live.stats().pollers).toBe(1);
    expect(await requestsPerPoll(gw, key)).toEqual(single);

    // Every subscriber gets the change from that one poller.
    await gw.sandbox.control.redeem(gifts[0]!.uuid);
    const events = await Promise.all(many.map((s) => s.next()));
    for (const e of events) {
      expect(e.data.giftStatusChanged).toEqual({ gift: { uuid: gifts[0]!.uuid, status: 'REDEEMED' }, previousStatus: 'SENT_AND_REDEEMABLE' });
    }

    // A funds subscription keeps polling as a clock while the order's subscribers all leave.
    const clock = subscribeWs(clients[0]!, FUNDS);
    await gw.watch.until(() => gw.watch.completed('funds') >= 1);
    for (const s of many) s.close();
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(key));
    expect(gw.gateway.live.stats()).toEqual({ pollers: 1, subscribers: 1 });

    const before = await gw.quietStats('funds');
    await gw.watch.polls('funds', POLLS);
    const after = await gw.quietStats('funds');
    expect(requestDelta(before.stats, after.stats)).toEqual({ 'GET /funds': after.polls - before.polls });
    clock.close();
  });
});
