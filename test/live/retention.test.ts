import { describe, expect } from 'vitest';
import { encodeCursor } from '../../src/live/cursor.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs, wsClient, type LiveGateway, type ResultStream, RESUMABLE_GIFT_CHANGES } from '../support/live.js';
import { test } from '../support/test.js';
import { liveGatewayFor, wsClientsFor } from './fixtures.js';

// The retention period in in-memory mode: a cursor older than LIVE_RETENTION_MS is CURSOR_EXPIRED; within it, a
// key's snapshot outlives its last subscriber, so a client resuming after a quiet gap gets the changes made
// while nobody watched (no second baseline); a cursor past the end of the log was never issued: BAD_USER_INPUT.

/** Short enough that waiting it out costs a moment; long against one poll interval (50 ms). */
const SHORT_RETENTION_MS = 300;

// Two live gateways (each with a sandbox of its own), started on first use and closed after the file's last
// test, each after its WebSocket client: `brief` keeps its log SHORT_RETENTION_MS, `lasting` the default.
const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('brief', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup, { env: { LIVE_RETENTION_MS: String(SHORT_RETENTION_MS) } }))
  .extend('briefClient', { scope: 'file' }, ({ brief }, { onCleanup }) => wsClientsFor(onCleanup, brief, 1)[0]!)
  // eslint-disable-next-line no-empty-pattern -- as above
  .extend('lasting', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup))
  .extend('lastingClient', { scope: 'file' }, ({ lasting }, { onCleanup }) => wsClientsFor(onCleanup, lasting, 1)[0]!);

const codeOf = (stream: ResultStream) => stream.received[0]?.errors?.[0]?.extensions?.code as string | undefined;
const uuids = (stream: ResultStream) => stream.received.map((r) => r.data.giftStatusChanged.gift.uuid as string);

async function giftsOf(gw: LiveGateway, recipients: number) {
  const order = await createEmailOrder(gw.sandbox, { recipients });
  const gifts = ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
  return { order, gifts, key: `campaign:${order.uuid}` };
}

/** Subscribes, lets the baseline pass, redeems `gift` and returns the event's cursor; the subscription is closed. */
async function cursorAfterRedeem(gw: LiveGateway, client: ReturnType<typeof wsClient>, orderId: string, key: string, gift: string): Promise<string> {
  const stream = subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: orderId });
  await gw.watch.until(() => gw.watch.completed(key) >= 1);
  await gw.sandbox.control.redeem(gift);
  const [event] = await stream.take(1);
  stream.close();
  return event.data.giftStatusChanged.cursor as string;
}

describe('retention (in-memory mode)', () => {
  it('refuses a cursor older than LIVE_RETENTION_MS with CURSOR_EXPIRED', async ({ brief, briefClient }) => {
    const { order, gifts, key } = await giftsOf(brief, 1);
    const cursor = await cursorAfterRedeem(brief, briefClient, order.id, key, gifts[0]!);
    const [, , id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string, string];
    // The cursor's age is what the retention is measured against: wait until it is past it, and no longer.
    const issuedAt = Number(id.split('-')[0]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, issuedAt + SHORT_RETENTION_MS + 50 - Date.now())));
    const stale = subscribeWs(briefClient, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: cursor });
    expect(await stale.ended).toBe('complete');
    expect(codeOf(stale)).toBe('CURSOR_EXPIRED');
    expect(stale.received[0]?.errors?.[0]?.message).toMatch(/older than the retention period/);
  });

  it('a client resuming after everyone stopped watching gets the changes made meanwhile, without a new baseline', async ({
    lasting,
    lastingClient,
  }) => {
    const { order, gifts, key } = await giftsOf(lasting, 3);
    const cursor = await cursorAfterRedeem(lasting, lastingClient, order.id, key, gifts[0]!);
    await lasting.watch.until(() => lasting.watch.stoppedKeys.includes(key));
    const pollsBeforeGap = lasting.watch.startedCount(key);

    // Nobody watches: these changes are seen by no poll until someone comes back.
    await lasting.sandbox.control.redeem(gifts[1]!);
    await lasting.sandbox.control.redeem(gifts[2]!);
    expect(lasting.watch.startedCount(key)).toBe(pollsBeforeGap);

    const back = subscribeWs(lastingClient, RESUMABLE_GIFT_CHANGES, { campaign: order.id, after: cursor });
    await back.take(2);
    // The first poll after the gap delivered both: it diffed against the kept snapshot (a baseline delivers none).
    expect(lasting.watch.deliveries(key).slice(-2)).toEqual([pollsBeforeGap + 1, pollsBeforeGap + 1]);
    // Every gift is final now, so the subscription ends: nothing came twice.
    expect(await back.ended).toBe('complete');
    expect(uuids(back).sort()).toEqual([gifts[1], gifts[2]].sort());
  });

  it('refuses a cursor past the end of the log (never issued) with BAD_USER_INPUT', async ({ lasting, lastingClient }) => {
    const { order, gifts, key } = await giftsOf(lasting, 1);
    const cursor = await cursorAfterRedeem(lasting, lastingClient, order.id, key, gifts[0]!);
    const [cursorKey, epoch, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string, string];
    const [ms, seq] = id.split('-').map(Number) as [number, number];
    // (The entry right after it may be real: the order's end is logged too.)
    for (const forgedId of [`${ms}-${seq + 1_000_000}`, `${ms + 86_400_000}-0`]) {
      const forged = subscribeWs(lastingClient, RESUMABLE_GIFT_CHANGES, {
        campaign: order.id,
        after: encodeCursor({ key: cursorKey, epoch, id: forgedId }),
      });
      expect(await forged.ended).toBe('complete');
      expect(codeOf(forged)).toBe('BAD_USER_INPUT');
    }
  });
});
