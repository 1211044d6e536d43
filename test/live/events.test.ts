import { createRateLimiter } from '../../src/security/rate-limit.js';
import { createRateLimit } from '../../src/security/use-rate-limit.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import WebSocket from 'ws';
import { attachWebSocket, isWebSocketContext, type WebSocketEndpoint } from '../../src/edge/websocket.js';
import { createEmailOrder, uniqueId } from '../support/fixtures.js';
import { requestDelta, subscribeSse, subscribeWs, wsClient, type LiveGateway, type ResultStream } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// What subscribers receive: one event per change of a reward, for one order or the whole account.

// Two live gateways (each with a sandbox of its own), started on first use and closed after the file's last
// test: `live` (with its WebSocket client `ws`, disposed first) for the order subscriptions, `accountLive` for
// the account feed, so that neither sees the other's orders.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup))
  .extend('ws', { scope: 'file' }, ({ live }, { onCleanup }) => wsClientsFor(onCleanup, live, 1)[0]!)
  // eslint-disable-next-line no-empty-pattern -- as above
  .extend('accountLive', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup));

describe('giftStatusChanged of an order', () => {
  // Each change a recipient, the mail system or the giver makes to a reward reaches subscribers as exactly one
  // event carrying the values before it, over both transports.

  const GIFT_CHANGES = /* GraphQL */ `
    subscription GiftChanges($campaign: ID, $includeCurrent: Boolean) {
      giftStatusChanged(campaign: $campaign, includeCurrent: $includeCurrent) {
        gift {
          uuid
          status
          deliveryStatus
          redeliveryCount
          campaign {
            id
          }
        }
        previousStatus
        previousDeliveryStatus
        previousRedeliveryCount
        changedAt
      }
    }
  `;

  async function orderWithGifts(gw: LiveGateway, recipients: number) {
    const order = await createEmailOrder(gw.sandbox, { recipients });
    const res = await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}&limit=100`);
    return { ...order, gifts: (res.body.gifts as { uuid: string }[]).map((g) => g.uuid) };
  }

  describe.each(['graphql-ws', 'sse'] as const)('over %s', (transport) => {
    const open = (gw: LiveGateway, ws: ReturnType<typeof wsClient>, variables: Record<string, unknown>): ResultStream =>
      transport === 'sse' ? subscribeSse(gw.url, GIFT_CHANGES, variables) : subscribeWs(ws, GIFT_CHANGES, variables);

    it('delivers redeem, bounce, resend and cancel once each, with the previous values, by the next poll', async ({ live: gw, ws }) => {
      const order = await orderWithGifts(gw, 3);
      const [a, b, c] = order.gifts as [string, string, string];
      const key = `campaign:${order.uuid}`;
      const stream = open(gw, ws, { campaign: order.id });
      await gw.watch.until(() => gw.watch.completed(key) >= 1);

      /** Runs the change, then awaits its event; it must come from the poll in flight or the next one. */
      const change = async (act: () => Promise<unknown>) => {
        await act();
        const pollAtChange = gw.watch.startedCount(key);
        const result = await stream.next();
        expect(result.errors).toBeUndefined();
        const deliveries = gw.watch.deliveries(key);
        expect(deliveries[deliveries.length - 1]).toBeLessThanOrEqual(pollAtChange + 1);
        return result.data.giftStatusChanged;
      };

      expect(await change(() => gw.sandbox.control.redeem(a))).toMatchObject({
        gift: { uuid: a, status: 'REDEEMED', deliveryStatus: 'DELIVERED', redeliveryCount: 0, campaign: { id: order.id } },
        previousStatus: 'SENT_AND_REDEEMABLE',
        previousDeliveryStatus: 'DELIVERED',
        previousRedeliveryCount: 0,
        changedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });

      expect(await change(() => gw.sandbox.control.bounce(b, false))).toMatchObject({
        gift: { uuid: b, status: 'SENT_AND_REDEEMABLE', deliveryStatus: 'TEMPORARILY_UNDELIVERABLE', redeliveryCount: 0 },
        previousStatus: 'SENT_AND_REDEEMABLE',
        previousDeliveryStatus: 'DELIVERED',
        previousRedeliveryCount: 0,
      });

      expect(await change(async () => expect((await gw.sandbox.api('PUT', `/gifts/${b}`, { resend: true })).status).toBe(200))).toMatchObject({
        gift: { uuid: b, status: 'SENT_AND_REDEEMABLE', deliveryStatus: 'DELIVERED', redeliveryCount: 1 },
        previousStatus: 'SENT_AND_REDEEMABLE',
        previousDeliveryStatus: 'TEMPORARILY_UNDELIVERABLE',
        previousRedeliveryCount: 0,
      });

      expect(await change(async () => expect((await gw.sandbox.api('DELETE', `/gifts/${c}`)).status).toBe(200))).toMatchObject({
        gift: { uuid: c, status: 'CANCELLED', deliveryStatus: 'DELIVERED' },
        previousStatus: 'SENT_AND_REDEEMABLE',
        previousDeliveryStatus: 'DELIVERED',
      });

      // One event per change: the hub delivered exactly four on this order.
      await gw.watch.polls(key, 2);
      expect(gw.watch.deliveries(key)).toHaveLength(4);
      expect(stream.received).toHaveLength(4);

      stream.close();
      await gw.watch.until(() => gw.watch.stoppedKeys.includes(key));
      expect(gw.gateway.live.stats()).toEqual({ pollers: 0, subscribers: 0 });
    });

    it('with includeCurrent starts with every reward of the order, previous values null', async ({ live: gw, ws }) => {
      const order = await orderWithGifts(gw, 2);
      const stream = open(gw, ws, { campaign: order.uuid, includeCurrent: true });
      const current = (await stream.take(2)).map((r) => r.data.giftStatusChanged);
      expect(current.map((c) => c.gift.uuid).sort()).toEqual([...order.gifts].sort());
      for (const c of current) {
        expect(c).toMatchObject({ gift: { status: 'SENT_AND_REDEEMABLE' }, previousStatus: null, previousDeliveryStatus: null });
      }
      stream.close();
      await gw.watch.until(() => gw.watch.stoppedKeys.includes(`campaign:${order.uuid}`));
    });

    it('answers NOT_FOUND for an order the upstream does not know', async ({ live: gw, ws }) => {
      const stream = open(gw, ws, { campaign: 'no-such-order' });
      const result = await Promise.race([stream.next(), stream.ended.then(() => ({ ended: stream.error }))]);
      const errors = 'errors' in result ? result.errors : (result as { ended: any }).ended;
      expect(JSON.stringify(errors)).toContain('No campaign is known by \\"no-such-order\\"');
      stream.close();
    });
  });
});

describe('account feed', () => {
  // giftStatusChanged without a campaign: every reward of the account. A poll reads the open rewards and a
  // created-date window, never the settled history, yet sees the changes that move no date (cancel, bounce)
  // and rewards born settled (embedded rewards are claimed on creation).

  const ACCOUNT_CHANGES = /* GraphQL */ `
    subscription {
      giftStatusChanged {
        gift {
          uuid
          campaignId
          status
          deliveryStatus
        }
        previousStatus
        previousDeliveryStatus
      }
    }
  `;

  const DAY_MS = 86_400_000;

  const giftsOf = async (gw: LiveGateway, uuid: string) =>
    ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);

  it('reports new, embedded, cancelled and bounced rewards while reading only open ones and a recent window', async ({ accountLive: gw }) => {
    const old = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const [settled, toCancel] = (await giftsOf(gw, old.uuid)) as [string, string];
    await gw.sandbox.control.redeem(settled);
    // More settled history than one page: 120 links that expire, then days pass.
    const expiry = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date(Date.now() + 2 * DAY_MS));
    const links = await gw.sandbox.api('POST', '/direct_links', {
      id: uniqueId('links'),
      price_in_cents: 500,
      brand_codes: ['sbxcoffeeus'],
      link_count: 120,
      expiry,
    });
    expect(links.status).toBe(200);
    await gw.sandbox.control.advanceClock(3 * DAY_MS);

    const stream = subscribeSse(gw.url, ACCOUNT_CHANGES);
    await gw.watch.until(() => gw.watch.completed('account') >= 1);
    const first = await gw.quietStats('account');
    await gw.watch.polls('account', 3);
    const last = await gw.quietStats('account');
    // Per quiet poll: one (empty) page of the created-date window and one page of open rewards; the settled
    // history is never read.
    expect(requestDelta(first.stats, last.stats)).toEqual({ 'GET /gifts': 2 * (last.polls - first.polls) });

    const fresh = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const appeared = (await stream.take(2)).map((r) => r.data.giftStatusChanged);
    expect(appeared.map((c) => c.gift.campaignId)).toEqual([fresh.id, fresh.id]);
    for (const c of appeared) expect(c).toMatchObject({ gift: { status: 'SENT_AND_REDEEMABLE' }, previousStatus: null });

    const embeddedId = uniqueId('embedded');
    const embedded = await gw.sandbox.api('POST', '/embedded', { id: embeddedId, brand_code: 'sbxcoffeeus', price_in_cents: 500 });
    expect(embedded.status).toBe(200);
    expect((await stream.next()).data.giftStatusChanged).toMatchObject({
      gift: { campaignId: embeddedId, status: 'REDEEMED' },
      previousStatus: null,
    });

    await gw.sandbox.api('DELETE', `/gifts/${toCancel}`);
    expect((await stream.next()).data.giftStatusChanged).toEqual({
      gift: { uuid: toCancel, campaignId: old.id, status: 'CANCELLED', deliveryStatus: 'DELIVERED' },
      previousStatus: 'SENT_AND_REDEEMABLE',
      previousDeliveryStatus: 'DELIVERED',
    });

    const bounced = appeared[0]!.gift.uuid as string;
    await gw.sandbox.control.bounce(bounced, true);
    expect((await stream.next()).data.giftStatusChanged).toEqual({
      gift: { uuid: bounced, campaignId: fresh.id, status: 'SENT_AND_REDEEMABLE', deliveryStatus: 'UNDELIVERABLE' },
      previousStatus: 'SENT_AND_REDEEMABLE',
      previousDeliveryStatus: 'DELIVERED',
    });

    // The created-date overlap lists recent rewards again on every poll; they are not reported twice.
    await gw.watch.polls('account', 3);
    expect(gw.watch.deliveries('account')).toHaveLength(5);
    stream.close();
  });
});

describe('WebSocket credentials', () => {
  // A connection is identified by its `authorization`: the one of connection_init, else the upgrade request's
  // header. Here the caller's name is the value it was identified by, and a one-field schema shows it.
  const schema = createSchema({
    typeDefs: 'type Query { authorization: String }',
    resolvers: { Query: { authorization: (_root: unknown, _args: unknown, ctx: { authorization: string | null }) => ctx.authorization } },
  });
  let server: Server;
  let url: string;
  let endpoint: WebSocketEndpoint;

  beforeAll(async () => {
    const yoga = createYoga({
      schema,
      context: (initial) => ({ authorization: isWebSocketContext(initial) ? initial.caller.name : null }),
    });
    server = createServer(yoga);
    // Every value is a valid key: this suite is about where credentials come from, not whether they are valid.
    endpoint = attachWebSocket(
      server,
      yoga,
      {
        identify: (authorization) => ({ name: authorization ?? 'none', scopes: new Set() }),
        rateLimit: createRateLimit(createRateLimiter({ perSecond: 1000, burst: 1000 })),
        paramsHooks: [],
        upgradeAllowed: () => true,
      },
      { maxPayloadBytes: 100_000, maxOperationsPerSocket: 100, maxConnectionsPerKey: 100, maxBufferedBytes: 1_000_000 },
      { error: () => undefined, debug: () => undefined },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await endpoint.close(1_000);
    await new Promise((resolve) => server.close(resolve));
  });

  const ask = async (client: ReturnType<typeof wsClient>) => {
    try {
      return (await subscribeWs(client, '{ authorization }').next()).data.authorization;
    } finally {
      await client.dispose();
    }
  };

  it('takes `authorization` from connection_init', async () => {
    expect(await ask(wsClient(url, { connectionParams: { authorization: 'Bearer from-init' } }))).toBe('Bearer from-init');
  });

  it('falls back to the Authorization header of the upgrade request', async () => {
    class WithHeader extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { authorization: 'Bearer from-header' } });
      }
    }
    expect(await ask(wsClient(url, { webSocketImpl: WithHeader }))).toBe('Bearer from-header');
  });
});
