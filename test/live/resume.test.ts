import { describe, expect } from 'vitest';
import { encodeCursor } from '../../src/live/cursor.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs, wsClient, type ResultStream, RESUMABLE_GIFT_CHANGES } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// In-memory mode (one process, no REDIS_URL) keeps a bounded log per key with the same cursors as cluster
// mode: a client that reconnects with `after` gets exactly the events it missed, then live ones; a cursor of
// a log that is gone (the process restarted) is CURSOR_EXPIRED, a malformed or foreign one BAD_USER_INPUT.

// The file's live gateway (a sandbox of its own) and one WebSocket client of it; the client is disposed before
// the gateway is closed, after the file's last test.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup))
  .extend('client', { scope: 'file' }, ({ live }, { onCleanup }) => wsClientsFor(onCleanup, live, 1)[0]!);

const uuids = (stream: ResultStream) => stream.received.map((r) => r.data.giftStatusChanged.gift.uuid as string);
/** The code of the error a refused subscription answered with (graphql-ws sends it as a result, then completes). */
const codeOf = (stream: ResultStream) => stream.received[0]?.errors?.[0]?.extensions?.code as string | undefined;

describe('resume with after (in-memory mode)', () => {
  it('a client that comes back with its last cursor gets exactly what it missed, then live events', async ({ live: gw, client }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 5 });
    const key = `campaign:${order.uuid}`;
    const gifts = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    // A second subscriber stays connected throughout, so the key's poller never stops.
    const steady = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
    const leaving = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
    await gw.watch.until(() => gw.watch.completed(key) >= 1);

    await gw.sandbox.control.redeem(gifts[0]!);
    const [first] = await leaving.take(1);
    leaving.close();
    await gw.sandbox.control.redeem(gifts[1]!);
    await gw.sandbox.control.redeem(gifts[2]!);
    await gw.watch.until(() => steady.received.length >= 3);

    const back = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: first.data.giftStatusChanged.cursor });
    await back.take(2);
    await gw.sandbox.control.redeem(gifts[3]!);
    await back.take(1);
    await gw.watch.polls(key, 3);
    expect(uuids(back)).toEqual([gifts[1], gifts[2], gifts[3]]);
    expect(uuids(steady)).toEqual([gifts[0], gifts[1], gifts[2], gifts[3]]);
    // Cursors are distinct and the resumed client's equal the steady one's for the same events.
    expect(back.received.map((r) => r.data.giftStatusChanged.cursor)).toEqual(steady.received.slice(1).map((r) => r.data.giftStatusChanged.cursor));
    steady.close();
    back.close();
  });

  it('refuses a malformed cursor and a cursor of another subscription with BAD_USER_INPUT', async ({ live: gw, client }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const malformed = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: 'not-a-cursor' });
    expect(await malformed.ended).toBe('complete');
    expect(codeOf(malformed)).toBe('BAD_USER_INPUT');
    const foreign = encodeCursor({ key: 'campaign:someone-else', epoch: 'x', id: '1-0' });
    const other = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: foreign });
    expect(await other.ended).toBe('complete');
    expect(codeOf(other)).toBe('BAD_USER_INPUT');
  });

  it('refuses a cursor of a log that no longer exists (the process restarted) with CURSOR_EXPIRED', async ({ live: gw, client }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const gifts = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    const before = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
    await gw.watch.until(() => gw.watch.completed(`campaign:${order.uuid}`) >= 1);
    await gw.sandbox.control.redeem(gifts[0]!);
    const [event] = await before.take(1);
    await gw.restart();
    const again = wsClient(gw.url);
    try {
      const stale = subscribeWs(again, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: event.data.giftStatusChanged.cursor });
      expect(await stale.ended).toBe('complete');
      expect(codeOf(stale)).toBe('CURSOR_EXPIRED');
    } finally {
      await again.dispose();
    }
  });
});
