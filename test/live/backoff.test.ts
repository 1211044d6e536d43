import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTAGE_AFTER_FAILURES } from '../../src/live/listener.js';
import { createEmailOrder } from '../support/fixtures.js';
import { startLiveGateway, subscribeWs, wsClient, type LiveGateway } from '../support/live.js';

// An upstream outage: polls fail, the poller backs off exponentially, the outage shows in the log and the
// hooks, subscribers stay connected, and the change made meanwhile arrives once the upstream is back.

const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: String) { giftStatusChanged(campaign: $campaign) { gift { uuid status } previousStatus } }
`;

let gw: LiveGateway;
let ws: ReturnType<typeof wsClient>;

beforeAll(async () => {
  gw = await startLiveGateway({ env: { UPSTREAM_RETRY_ATTEMPTS: '2' } });
  ws = wsClient(gw.url);
});
afterAll(async () => {
  await ws?.dispose();
  await gw?.close();
});

describe('upstream outage', () => {
  it('backs off without dropping subscribers, logs the outage, and catches up afterwards', async () => {
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
