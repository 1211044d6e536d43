import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, killReplicas, startRedis, startReplica, type Replica, type TestRedis } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// Takeover time, as the contract states it: from the leader's death (kill -9, no release) to the new leader's
// first poll is at most LIVE_LEASE_MS + one POLL_INTERVAL_MS. The takeover is logged by the replica that claims
// the lapsed lease, at the start of the poll tick that then polls, so its timestamp is that first poll's.

const POLL_INTERVAL_MS = 100;
// Twenty intervals: a lease lapsing under a stalled event loop (busy shared cores) would hand the key over early.
const LIVE_LEASE_MS = 2_000;
const TAKEOVER = 'live: took over a key whose poller vanished';
const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID) {
    giftStatusChanged(campaign: $campaign) {
      gift {
        uuid
        status
      }
      cursor
    }
  }
`;

let sandbox: TestSandbox;
let redis: TestRedis;
let replicas: Replica[];
const clients: Client[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  redis = await startRedis();
  const env = {
    REWARD_API_URL: sandbox.sandbox.baseUrl,
    REWARD_API_TOKEN: sandbox.sandbox.token,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `test-${randomUUID().slice(0, 8)}:`,
    POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
    POLL_INTERVAL_FLOOR_MS: '10',
    LIVE_LEASE_MS: String(LIVE_LEASE_MS),
    // Generous: a replica stalled on two busy cores must not count Redis as down (cluster-redis-failure.test.ts does that).
    REDIS_COMMAND_TIMEOUT_MS: '2000',
  };
  replicas = await Promise.all([0, 1].map(() => startReplica(env)));
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await killReplicas();
  await redis?.stop();
  await sandbox?.close();
});

describe('takeover time', () => {
  it('the new leader polls within LIVE_LEASE_MS + one interval of the leader being killed', async () => {
    const order = await createEmailOrder(sandbox, { recipients: 3 }); // one stays unredeemed, so the key is still watched at the end
    const gifts = ((await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    const streams = replicas.map((replica) => {
      const client = wsClient(replica.url);
      clients.push(client);
      return subscribeWs(client, GIFT_CHANGES, { campaign: order.id });
    });
    // Both subscriptions registered before the first change, or one of them would wait for it forever.
    await eventually(async () => (await Promise.all(replicas.map((r) => r.metric('reward_gateway_live_subscribers')))).every((n) => n === 1));
    const leases = async () => Promise.all(replicas.map((r) => r.metric('reward_gateway_live_leases')));
    // The key is led by exactly one replica, and its first event reaches both.
    const held = await eventually(async () => {
      const counts = await leases();
      return counts[0]! + counts[1]! === 1 ? counts : null;
    });
    await sandbox.control.redeem(gifts[0]!);
    await Promise.all(streams.map((s) => s.take(1)));

    const leader = replicas[held.indexOf(1)]!;
    const survivor = replicas[held.indexOf(0)]!;
    const killedAt = Date.now();
    await leader.kill('SIGKILL');
    await sandbox.control.redeem(gifts[1]!);

    const survivorStream = streams[replicas.indexOf(survivor)]!;
    const [event] = await survivorStream.take(1);
    expect(event.data.giftStatusChanged.gift.uuid).toBe(gifts[1]);
    const takeover = survivor.lines().find((l) => l.msg === TAKEOVER && l.key === `campaign:${order.uuid}`);
    expect(takeover).toBeDefined();
    const tookOverAt = Date.parse(takeover!.time as string);
    expect(tookOverAt - killedAt).toBeLessThanOrEqual(LIVE_LEASE_MS + POLL_INTERVAL_MS);
    expect(await survivor.metric('reward_gateway_live_leases')).toBe(1);
    expect(await survivor.metric('reward_gateway_live_takeovers_total')).toBe(1);
  }, 60_000);
});
