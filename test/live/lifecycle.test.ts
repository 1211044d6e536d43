import { describe, expect } from 'vitest';
import { createEmailOrder, uniqueId } from '../support/fixtures.js';
import { requestDelta, startLiveGateway, subscribeSse, subscribeWs, wsClient, type LiveGateway } from '../support/live.js';
import { OUTAGE_AFTER_FAILURES } from '../../src/live/listener.js';
import { test } from '../support/test.js';

// How subscriptions begin, end and survive: completion, a gateway restart, an upstream outage, an order
// waiting for funds. Each part runs its own gateway and sandbox.

// Lifetime: the test. Starts a live gateway (a sandbox of its own) and gives it with a WebSocket client of it
// (graphql-ws connects on the first subscription); after the test each client is disposed, then its gateway
// closed.
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
const it = test.extend('liveWith', async ({}, { onCleanup }) => {
  const started: { close(): Promise<void> | void }[] = [];
  onCleanup(async () => {
    for (const made of started.reverse()) await made.close();
  });
  return async (options?: Parameters<typeof startLiveGateway>[0]) => {
    const gw = await startLiveGateway(options);
    started.push(gw);
    const ws = wsClient(gw.url);
    started.push({ close: () => ws.dispose() });
    return { gw, ws };
  };
});

describe('completion', () => {
  // An order's gift subscription completes once the order is created and every reward is final; nothing keeps
  // polling for it afterwards.

  const GIFT_CHANGES = /* GraphQL */ `
    subscription ($campaign: ID, $includeCurrent: Boolean) {
      giftStatusChanged(campaign: $campaign, includeCurrent: $includeCurrent) {
        gift {
          uuid
          status
        }
        previousStatus
      }
    }
  `;
  const CAMPAIGN_STATUS = /* GraphQL */ `
    subscription ($ref: ID!) {
      campaignStatusChanged(ref: $ref) {
        campaign {
          id
          status
        }
        previousStatus
      }
    }
  `;
  const DAY_MS = 86_400_000;

  /** YYYY-MM-DD in Pacific time, `days` from now. */
  function pacificDate(days: number): string {
    return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date(Date.now() + days * DAY_MS));
  }

  async function expiringOrder(gw: LiveGateway, recipients: number) {
    const id = uniqueId('expiring');
    const res = await gw.sandbox.api('POST', '/campaign', {
      id,
      price_in_cents: 1000,
      brand_codes: ['sbxcoffeeus'],
      contacts: Array.from({ length: recipients }, (_, i) => ({ email: `r${i}@example.com` })),
      subject: 'Thanks',
      message: 'Thanks.',
      expiry: pacificDate(2),
    });
    expect(res.status).toBe(200);
    const uuid = res.body.campaign.uuid as string;
    const gifts = (await gw.sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`)).body.gifts as { uuid: string }[];
    return { id, uuid, gifts: gifts.map((g) => g.uuid) };
  }

  it('completes when every reward is redeemed, cancelled or expired, and stops polling', async ({ liveWith }) => {
    const { gw, ws } = await liveWith();
    const order = await expiringOrder(gw, 4);
    const [redeemed, cancelled, ...expiring] = order.gifts as [string, string, ...string[]];
    const key = `campaign:${order.uuid}`;
    const stream = subscribeWs(ws, GIFT_CHANGES, { campaign: order.id, includeCurrent: true });
    expect(await stream.take(4)).toHaveLength(4);

    // The order is created already: its status subscription has nothing left to report.
    const status = subscribeSse(gw.url, CAMPAIGN_STATUS, { ref: order.id });
    expect(await status.ended).toBe('complete');
    expect(status.received).toEqual([]);

    await gw.sandbox.control.redeem(redeemed);
    expect((await stream.next()).data.giftStatusChanged).toEqual({
      gift: { uuid: redeemed, status: 'REDEEMED' },
      previousStatus: 'SENT_AND_REDEEMABLE',
    });
    await gw.sandbox.api('DELETE', `/gifts/${cancelled}`);
    expect((await stream.next()).data.giftStatusChanged).toEqual({
      gift: { uuid: cancelled, status: 'CANCELLED' },
      previousStatus: 'SENT_AND_REDEEMABLE',
    });

    // The end of the expiry day: both remaining rewards expire in one step.
    const before = await gw.quietStats(key);
    await gw.sandbox.control.advanceClock(3 * DAY_MS);
    const expired = (await stream.take(2)).map((r) => r.data.giftStatusChanged);
    expect(expired.map((e) => e.gift.uuid).sort()).toEqual([...expiring].sort());
    for (const e of expired) expect(e).toMatchObject({ gift: { status: 'EXPIRED' }, previousStatus: 'SENT_AND_REDEEMABLE' });
    expect(await stream.ended).toBe('complete');
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(key));
    expect(gw.gateway.live.stats()).toEqual({ pollers: 0, subscribers: 0 });

    // Two rewards of one order left the open list together: one listing of the order, not one lookup each.
    const after = await gw.sandbox.control.stats();
    expect(requestDelta(before.stats, after)['GET /gifts/:uuid']).toBeUndefined();

    // Subscribing to a settled order completes after its baseline, without events.
    const again = subscribeWs(ws, GIFT_CHANGES, { campaign: order.uuid });
    expect(await again.ended).toBe('complete');
    expect(again.received).toEqual([]);
  });
});

describe('server restart', () => {
  // A gateway restart: WebSockets close with 1001 (Going Away) and SSE streams drop without a `complete`, so
  // clients know to come back. A graphql-ws client re-subscribes by itself and gets a fresh baseline.

  const GIFT_CHANGES = /* GraphQL */ `
    subscription ($campaign: ID, $includeCurrent: Boolean) {
      giftStatusChanged(campaign: $campaign, includeCurrent: $includeCurrent) {
        gift {
          uuid
          status
          deliveryStatus
        }
        previousStatus
      }
    }
  `;

  it('clients reconnect, re-subscribe and start from a new baseline', async ({ liveWith }) => {
    const { gw } = await liveWith();
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const [a, b] = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid) as [
      string,
      string,
    ];
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

describe('upstream outage', () => {
  // An upstream outage: polls fail, the poller backs off exponentially, the outage shows in the log and the
  // hooks, subscribers stay connected, and the change made meanwhile arrives once the upstream is back.

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

  it('backs off without dropping subscribers, logs the outage, and catches up afterwards', async ({ liveWith }) => {
    const { gw, ws } = await liveWith({ env: { UPSTREAM_RETRY_ATTEMPTS: '2' } });
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const gift = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[])[0]!.uuid;
    const key = `campaign:${order.uuid}`;
    const stream = subscribeWs(ws, GIFT_CHANGES, { campaign: order.id });
    await gw.watch.until(() => gw.watch.completed(key) >= 1);

    await gw.sandbox.control.fault({ route: 'GET /gifts', status: 503, rate: 1 });
    await gw.watch.until(() => gw.watch.failures.length >= OUTAGE_AFTER_FAILURES);
    const failures = gw.watch.failures.slice(0, OUTAGE_AFTER_FAILURES);
    expect(failures.map((f) => f.consecutiveFailures)).toEqual([1, 2, 3]);
    // Each wait doubles (jitter is ±10%, so the order holds whatever the draw).
    for (let i = 1; i < failures.length; i++) expect(failures[i]!.retryInMs).toBeGreaterThan(failures[i - 1]!.retryInMs);
    expect(gw.logs.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ obj: expect.objectContaining({ key, consecutiveFailures: OUTAGE_AFTER_FAILURES }) }),
    ]);
    expect(gw.gateway.live.stats()).toEqual({ pollers: 1, subscribers: 1 });
    expect(stream.received).toEqual([]);

    // The recipient claims the reward during the outage; the event arrives once polls succeed again.
    await gw.sandbox.control.redeem(gift);
    await gw.sandbox.control.clearFaults();
    expect((await stream.next()).data.giftStatusChanged).toEqual({ gift: { uuid: gift, status: 'REDEEMED' }, previousStatus: 'SENT_AND_REDEEMABLE' });
    expect(gw.logs.filter((l) => l.level === 'info')).toEqual([
      expect.objectContaining({ obj: expect.objectContaining({ key, failedPolls: expect.any(Number) }) }),
    ]);
    stream.close();
  });
});

describe('funding', () => {
  // An order bigger than the balance waits for funds; a top-up sends it. campaignStatusChanged reports
  // AWAITING_FUNDS → CREATED, its rewards appear on giftStatusChanged, and fundsChanged reports the balances.

  const CAMPAIGN_STATUS = /* GraphQL */ `
    subscription ($ref: ID!) {
      campaignStatusChanged(ref: $ref) {
        campaign {
          id
          status
        }
        previousStatus
      }
    }
  `;
  const GIFT_CHANGES = /* GraphQL */ `
    subscription ($campaign: ID) {
      giftStatusChanged(campaign: $campaign) {
        gift {
          uuid
          status
          deliveryStatus
        }
        previousStatus
        previousDeliveryStatus
      }
    }
  `;
  const FUNDS = /* GraphQL */ `
    subscription ($currency: String) {
      fundsChanged(currency: $currency) {
        funds {
          balances {
            currency
            availableInCents
            pendingInCents
            reservedInCents
          }
        }
      }
    }
  `;

  const balance = (funds: { balances: { currency: string }[] }, currency: string) => funds.balances.find((b) => b.currency === currency);

  it('reports AWAITING_FUNDS → CREATED, the rewards that appear, and the balances that moved', async ({ liveWith }) => {
    const { gw, ws } = await liveWith({ sandbox: { balances: { USD: 5_000 } } });
    const order = await createEmailOrder(gw.sandbox, { recipients: 3, priceInCents: 2_500 });
    expect((await gw.sandbox.api('GET', `/campaign/${order.id}`)).body.campaign.status).toBe('AWAITING_FUNDS');
    const key = `campaign:${order.uuid}`;

    const status = subscribeSse(gw.url, CAMPAIGN_STATUS, { ref: order.id });
    const gifts = subscribeWs(ws, GIFT_CHANGES, { campaign: order.uuid });
    const usd = subscribeWs(ws, FUNDS, { currency: 'usd' });
    const cad = subscribeWs(ws, FUNDS, { currency: 'CAD' });
    await gw.watch.until(() => gw.watch.completed(key) >= 1 && gw.watch.completed('funds') >= 1 && gw.gateway.live.stats().subscribers === 4);
    // Status and rewards of one order share one poller.
    expect(gw.gateway.live.stats().pollers).toBe(2);

    await gw.sandbox.control.topUp('USD', 100_000);
    expect((await status.next()).data.campaignStatusChanged).toEqual({
      campaign: { id: order.id, status: 'CREATED' },
      previousStatus: 'AWAITING_FUNDS',
    });
    expect(await status.ended).toBe('complete');

    const funded = (await usd.next()).data.fundsChanged.funds;
    const upstream = (await gw.sandbox.api('GET', '/funds')).body.fundsbycurrency.USD;
    expect(balance(funded, 'USD')).toEqual({
      currency: 'USD',
      availableInCents: upstream.available_in_cents,
      pendingInCents: upstream.pending_in_cents,
      reservedInCents: upstream.reserved_in_cents,
    });
    expect(upstream.reserved_in_cents).toBeGreaterThan(0);

    // The rewards come into being with the order; each first shows with no previous values. (A poll that
    // read them before the order's emails went out reports UNSENT first, then the delivery.)
    const seen = new Map<string, string>();
    while (seen.size < 3 || [...seen.values()].some((d) => d !== 'DELIVERED')) {
      const change = (await gifts.next()).data.giftStatusChanged;
      if (!seen.has(change.gift.uuid)) expect(change).toMatchObject({ previousStatus: null, previousDeliveryStatus: null });
      seen.set(change.gift.uuid, change.gift.deliveryStatus);
    }

    // Only a change of its own currency reaches a currency's subscriber.
    await gw.sandbox.control.topUp('CAD', 30_000);
    const cadFunds = (await cad.next()).data.fundsChanged.funds;
    expect(balance(cadFunds, 'CAD')).toMatchObject({ availableInCents: 1_000_000 + 30_000 });
    expect(balance(cadFunds, 'USD')).toEqual(balance(funded, 'USD'));
    expect(cad.received).toHaveLength(1);

    for (const s of [gifts, usd, cad]) s.close();
    await gw.watch.until(() => gw.gateway.live.stats().pollers === 0);
  });
});
