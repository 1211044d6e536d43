import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { startLiveGateway, subscribeSse, subscribeWs, wsClient, type LiveGateway } from '../support/live.js';

// A gateway restart: WebSockets close with 1001 (Going Away) and SSE streams drop without a `complete`, so
// clients know to come back. A graphql-ws client re-subscribes by itself and gets a fresh baseline.

const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: String, $includeCurrent: Boolean) {
    giftStatusChanged(campaign: $campaign, includeCurrent: $includeCurrent) {
      gift { uuid status deliveryStatus }
      previousStatus
    }
  }
`;

let gw: LiveGateway;

beforeAll(async () => {
  gw = await startLiveGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('server restart', () => {
  it('clients reconnect, re-subscribe and start from a new baseline', async () => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const [a, b] = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid) as [string, string];
    let closeCode: (code: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (closeCode = resolve));
    const ws = wsClient(gw.url, {
      retryAttempts: 3,
      // Reconnect as soon as the new instance listens: waits on the restart itself, not on time.
      retryWait: () => gw.restarted,
      on: { closed: (event) => closeCode((event as { code: number }).code) },
    });
    try {
      const stream = subscribeWs(ws, GIFT_CHANGES, { campaign: order.id, includeCurrent: true });
      const sse = subscribeSse(gw.url, GIFT_CHANGES, { campaign: order.id });
      expect(await stream.take(2)).toHaveLength(2);
      await gw.watch.until(() => gw.gateway.live.stats().subscribers === 2);

      // A change made while the gateway is away shows in the new baseline, not as an event.
      await gw.restart(() => gw.sandbox.control.redeem(a));
      expect(await closed).toBe(1001);
      expect(await sse.ended).toBe('dropped');
      const baseline = (await stream.take(2)).map((r) => r.data.giftStatusChanged);
      expect(baseline.map((c) => [c.gift.uuid, c.gift.status, c.previousStatus]).sort()).toEqual(
        [
          [a, 'REDEEMED', null],
          [b, 'SENT_AND_REDEEMABLE', null],
        ].sort(),
      );

      await gw.sandbox.control.bounce(b, true);
      expect((await stream.next()).data.giftStatusChanged).toEqual({
        gift: { uuid: b, status: 'SENT_AND_REDEEMABLE', deliveryStatus: 'UNDELIVERABLE' },
        previousStatus: 'SENT_AND_REDEEMABLE',
      });

      // An SSE client re-subscribes itself and gets live events again.
      const again = subscribeSse(gw.url, GIFT_CHANGES, { campaign: order.id });
      await gw.watch.until(() => gw.gateway.live.stats().subscribers === 2);
      await gw.sandbox.control.expire(b);
      expect((await again.next()).data.giftStatusChanged).toMatchObject({ gift: { uuid: b, status: 'EXPIRED' } });
      expect((await stream.next()).data.giftStatusChanged).toMatchObject({ gift: { uuid: b, status: 'EXPIRED' } });
      expect(await stream.ended).toBe('complete');
      expect(await again.ended).toBe('complete');
    } finally {
      await ws.dispose();
    }
  });
});
