import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { decodeCursor } from '../../src/live/cursor.js';
import { createEmailOrder } from '../support/fixtures.js';
import { startLiveGateway, subscribeWs, wsClient, RESUMABLE_GIFT_CHANGES } from '../support/live.js';
import { test } from '../support/test.js';

// Issue 36, item 3: with a gateway key holding the digits of the current timestamp (a key made with
// `date +%s%3N`), the cursors of subscription events, whose entry ids are timestamps too, came back with
// runs blanked, and every resume with one failed as "not a cursor this gateway issued". Cursors are the
// gateway's own values: never scanned, whatever the keys hold.

const STAMP_KEY = `stamp-${String(Date.now()).slice(0, 10)}-${randomBytes(6).toString('hex')}`;

// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
const it = test.extend('live', { scope: 'file' }, async ({}, { onCleanup }) => {
  const live = await startLiveGateway({ env: { GATEWAY_API_KEYS: JSON.stringify([{ name: 'stamp', key: STAMP_KEY, scopes: ['rewards:read'] }]) } });
  onCleanup(() => live.close());
  return live;
});

describe('resume cursors with a key holding a timestamp', () => {
  it('every cursor is one the gateway issued, and resuming from it gets exactly what was missed', async ({ live: gw }) => {
    const ws = wsClient(gw.url, { connectionParams: { authorization: `Bearer ${STAMP_KEY}` } });
    try {
      const order = await createEmailOrder(gw.sandbox, { recipients: 3 });
      const key = `campaign:${order.uuid}`;
      const gifts = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
      const steady = subscribeWs(ws, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
      await gw.watch.until(() => gw.watch.completed(key) >= 1);
      for (const gift of gifts) await gw.sandbox.control.redeem(gift);
      const events = await steady.take(gifts.length);
      const cursors = events.map((e) => e.data.giftStatusChanged.cursor as string);
      for (const cursor of cursors) expect(() => decodeCursor(cursor, key), cursor).not.toThrow();

      const back = subscribeWs(ws, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: cursors[0] });
      const missed = await back.take(gifts.length - 1);
      expect(missed.map((e) => e.errors)).toEqual(missed.map(() => undefined));
      expect(missed.map((e) => e.data.giftStatusChanged.gift.uuid)).toEqual(events.slice(1).map((e) => e.data.giftStatusChanged.gift.uuid));
      steady.close();
      back.close();
    } finally {
      await ws.dispose();
    }
  });
});
