import type { Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { afterAll, describe, expect } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { test as it } from '../support/test.js';

// A Redis that hangs while its connections stay open (CLIENT PAUSE: every command waits, no socket closes)
// must not stall subscriptions for as long as it hangs: commands time out (REDIS_COMMAND_TIMEOUT_MS), the
// replica counts Redis as down and polls for its own subscribers, then returns to Redis once it answers again.
// (cluster-redis-failure.test.ts hangs the whole server with SIGSTOP, under three replicas.)

const PAUSE_MS = 6_000;
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

let replica: Replica;
let client: Client;

// The file's sandbox and redis-server are fixtures (stopped after the file, once the replica is gone); the
// replica is a process of its own, started and killed here.
it.beforeAll(async ({ sandbox, redis }) => {
  replica = await startReplica({
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: '100',
    POLL_INTERVAL_FLOOR_MS: '10',
    LIVE_LEASE_MS: '1000',
  });
  client = wsClient(replica.url);
}, 60_000);

afterAll(async () => {
  await client?.dispose();
  await killReplicas();
});

describe('Redis that hangs', () => {
  it('subscriptions keep delivering while Redis hangs with its connections open, and go back to Redis after', async ({ sandbox, redis }) => {
    const order = await createEmailOrder(sandbox, { recipients: 3 });
    const gifts = ((await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    const stream = subscribeWs(client, GIFT_CHANGES, { campaign: order.id });
    await eventually(async () => (await replica.metric('reward_gateway_live_leases')) === 1, PROBE_MS);
    // Past the baseline: a redeem before it would be part of the state, not an event.
    await eventually(async () => (await replica.metric('reward_gateway_live_polls_total', { feed: 'campaign' })) >= 2, PROBE_MS);
    await sandbox.control.redeem(gifts[0]!);
    await stream.take(1);

    const admin = new Redis(redis.url);
    try {
      await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
      await sandbox.control.redeem(gifts[1]!);
      const [during] = await stream.take(1);
      // Delivered while Redis still hangs: the replica had given up on it (without the timeout → outage step,
      // it would still count Redis as up and deliver only once the pause ends).
      const upAtDelivery = await replica.metric('reward_gateway_redis_up');
      expect(during.data.giftStatusChanged.gift.uuid).toBe(gifts[1]);
      expect(upAtDelivery).toBe(0);

      await eventually(async () => (await replica.metric('reward_gateway_redis_up')) === 1, PROBE_MS);
      await sandbox.control.redeem(gifts[2]!);
      const [after] = await stream.take(1);
      expect(after.data.giftStatusChanged.gift.uuid).toBe(gifts[2]);
      expect(stream.received.filter((r) => r.data.giftStatusChanged.gift.uuid === gifts[2])).toHaveLength(1);
    } finally {
      admin.disconnect();
    }
  });
});
