import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { requestDelta, subscribeWs, type ResultStream } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// An event's nested selection is read once per event, not once per subscriber: every subscriber of one
// delivery resolves `gift.campaign` through the same loaders. Counted in the sandbox's stats.

const NESTED = /* GraphQL */ `
  subscription ($campaign: ID) {
    giftStatusChanged(campaign: $campaign) {
      gift {
        uuid
        status
        campaign {
          status
        }
        brand {
          name
        }
      }
    }
  }
`;
const SUBSCRIBERS = 30;
const CLIENTS = 5;

// The file's live gateway (a sandbox of its own) and its WebSocket clients; the clients are disposed before
// the gateway is closed, after the file's last test.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup))
  .extend('clients', { scope: 'file' }, ({ live }, { onCleanup }) => wsClientsFor(onCleanup, live, CLIENTS));

describe('subscription events share their loaders', () => {
  it(`${SUBSCRIBERS} subscribers asking for gift { campaign brand } cost one campaign read per event`, async ({ live: gw, clients }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const key = `campaign:${order.uuid}`;
    const gifts = (await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];

    const subscribers: ResultStream[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) subscribers.push(subscribeWs(clients[i % CLIENTS]!, NESTED, { campaign: order.id }));
    await gw.watch.until(() => gw.gateway.live.stats().subscribers === SUBSCRIBERS);
    await gw.watch.until(() => gw.watch.completed(key) >= 1);

    for (const [round, gift] of gifts.entries()) {
      const before = await gw.quietStats(key);
      await gw.sandbox.control.redeem(gift.uuid);
      const events = await Promise.all(subscribers.map((s) => s.next()));
      for (const e of events) {
        expect(e.errors).toBeUndefined();
        expect(e.data.giftStatusChanged.gift).toMatchObject({ uuid: gift.uuid, status: 'REDEEMED', campaign: { status: 'CREATED' } });
      }
      const after = await gw.quietStats(key);
      const delta = requestDelta(before.stats, after.stats);
      // The poller's own reads are one page per poll; the order itself is read once for all 30 subscribers.
      expect(delta['GET /campaign/:id'], `round ${round}`).toBe(1);
      // Brands come from the process-wide catalog: at most one read, the first time a brand is asked.
      expect(delta['GET /brands/:code'] ?? 0).toBeLessThanOrEqual(round === 0 ? 1 : 0);
    }
    for (const s of subscribers) s.close();
  });
});
