import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { GIFT_CHANGES, subscribeWs } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// Where a subscription starts: at the state its replica holds when it is accepted (counted in
// reward_gateway_live_subscribers, its resolver returned), so every change made after that is an event. The
// first subscriber of an order waits for the order's first poll (its baseline): a change made while that poll
// is on its way would otherwise be part of the baseline, never an event. (Across replicas: view-races.test.ts.)

const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('gw', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup))
  .extend('ws', { scope: 'file' }, ({ gw }, { onCleanup }) => wsClientsFor(onCleanup, gw, 1)[0]!);

describe('a subscription’s start', () => {
  it('a change made once the subscription is accepted is an event, however slow the first poll', async ({ gw, ws }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const gifts = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    // The order's first listing of rewards answers late: the baseline poll is on its way for a while.
    await gw.sandbox.control.fault({ route: 'GET /gifts', latency_ms: 400, rate: 1, count: 1 });
    const stream = subscribeWs(ws, GIFT_CHANGES, { campaign: order.id });
    await expect.poll(() => gw.gateway.live.stats().subscribers, { interval: 5, timeout: 10_000 }).toBe(1);
    await gw.sandbox.control.redeem(gifts[0]!);
    // Two polls later the change is found if it is ever going to be; a second one then marks the end.
    await gw.watch.polls(`campaign:${order.uuid}`, 2);
    await gw.sandbox.control.redeem(gifts[1]!);
    // The first event is the first change, not the second.
    const [first] = await stream.take(1);
    expect(first.data.giftStatusChanged.gift).toEqual({ uuid: gifts[0], status: 'REDEEMED' });
    const [second] = await stream.take(1);
    expect(second.data.giftStatusChanged.gift).toEqual({ uuid: gifts[1], status: 'REDEEMED' });
    // Nobody watches the order after this test: the next one's fault meets its own order's first poll.
    stream.close();
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(`campaign:${order.uuid}`));
  });

  it('a client that leaves while its subscription waits for the first poll lets the order go', async ({ gw, ws }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const key = `campaign:${order.uuid}`;
    const before = gw.gateway.live.stats();
    await gw.sandbox.control.fault({ route: 'GET /gifts', latency_ms: 400, rate: 1, count: 1 });
    const stream = subscribeWs(ws, GIFT_CHANGES, { campaign: order.id });
    await gw.watch.until(() => gw.watch.inFlight(key));
    stream.close();
    // Not counted while it waited; once the baseline is in, the subscription is let go and nobody watches the order.
    expect(gw.gateway.live.stats().subscribers).toBe(before.subscribers);
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(key));
    expect(gw.gateway.live.stats()).toEqual(before);
  });

  it('over SSE, a change made once the response has begun is an event', async ({ gw }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const gifts = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    await gw.sandbox.control.fault({ route: 'GET /gifts', latency_ms: 400, rate: 1, count: 1 });
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: GIFT_CHANGES, variables: { campaign: order.id } }),
      signal: controller.signal,
    });
    try {
      expect(res.status).toBe(200);
      // The response has begun: the subscription is accepted, so this change is an event.
      await gw.sandbox.control.redeem(gifts[0]!);
      // Then another, once the first would have been found: it must not be the first event.
      await gw.watch.polls(`campaign:${order.uuid}`, 2);
      await gw.sandbox.control.redeem(gifts[1]!);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!/^data:/m.test(text)) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += chunk.value;
      }
      const data = JSON.parse(/^data: ?(.*)$/m.exec(text)![1]!) as { data: { giftStatusChanged: { gift: unknown } } };
      expect(data.data.giftStatusChanged.gift).toEqual({ uuid: gifts[0], status: 'REDEEMED' });
    } finally {
      controller.abort();
    }
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(`campaign:${order.uuid}`));
  });
});
