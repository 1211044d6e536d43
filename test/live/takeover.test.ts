import type { Client } from 'graphql-ws';
import { afterAll, describe, expect } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica, within } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { test as it } from '../support/test.js';

// Takeover time, as the contract states it: from the leader's death (kill -9, no release) to the new leader's
// first poll is at most LIVE_LEASE_MS + one POLL_INTERVAL_MS. The takeover is logged by the replica that claims
// the lapsed lease, at the start of the poll tick that then polls, so its timestamp is that first poll's.

const POLL_INTERVAL_MS = 100;
// Twenty intervals: a lease lapsing under a stalled event loop (busy shared cores) would hand the key over early.
const LIVE_LEASE_MS = 2_000;
const TAKEOVER = 'live: took over a key whose poller vanished';
// With includeCurrent: a subscription's first results are the order's rewards as its replica's view holds them,
// sent when the subscription is accepted (see below).
const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID) {
    giftStatusChanged(campaign: $campaign, includeCurrent: true) {
      gift {
        uuid
        status
      }
      cursor
    }
  }
`;

let replicas: Replica[];
const clients: Client[] = [];

// The file's sandbox and redis-server are fixtures, stopped after the file once the replicas are gone; the
// replicas are processes of their own, started and killed here.
it.beforeAll(async ({ sandbox, redis }) => {
  const env = {
    ...replicaEnv(sandbox, redis),
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
});

describe('takeover time', () => {
  it('the new leader polls within LIVE_LEASE_MS + one interval of the leader being killed', async ({ sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 3 }); // one stays unredeemed, so the key is still watched at the end
    const gifts = ((await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    const streams = replicas.map((replica) => {
      const client = wsClient(replica.url);
      clients.push(client);
      return subscribeWs(client, GIFT_CHANGES, { campaign: order.id });
    });
    // Both subscriptions accepted before the first change: a subscription is accepted once its replica has a view
    // of the key (the leader's baseline, or the snapshot another replica loads), and with includeCurrent its
    // first results are that view, sent at that moment; every change after them is an event.
    const current = await within(
      20_000,
      'the current state on both replicas (both subscriptions live)',
      Promise.all(streams.map((s) => s.take(gifts.length))),
    );
    for (const results of current) {
      expect(results.map((r) => r.data.giftStatusChanged.gift.uuid).sort()).toEqual([...gifts].sort());
    }
    const before = current[0]!.find((r) => r.data.giftStatusChanged.gift.uuid === gifts[0])!.data.giftStatusChanged.gift.status as string;
    const leases = async () => Promise.all(replicas.map((r) => r.metric('reward_gateway_live_leases')));
    // The key is led by exactly one replica, and its first event reaches both.
    const held = await eventually(
      async () => {
        const counts = await leases();
        return counts[0]! + counts[1]! === 1 ? counts : null;
      },
      PROBE_MS,
      { ms: 10_000, what: 'exactly one replica to hold the lease' },
    );
    await sandbox.control.redeem(gifts[0]!);
    const first = await within(10_000, 'the first change on both replicas', Promise.all(streams.map((s) => s.take(1))));
    for (const [event] of first) {
      expect(event.data.giftStatusChanged.gift.uuid).toBe(gifts[0]);
      expect(event.data.giftStatusChanged.gift.status).not.toBe(before);
    }

    const leader = replicas[held.indexOf(1)]!;
    const survivor = replicas[held.indexOf(0)]!;
    const killedAt = Date.now();
    await leader.kill('SIGKILL');
    await sandbox.control.redeem(gifts[1]!);

    const survivorStream = streams[replicas.indexOf(survivor)]!;
    const [event] = await within(15_000, "the survivor's event after the leader was killed", survivorStream.take(1));
    expect(event.data.giftStatusChanged.gift.uuid).toBe(gifts[1]);
    const takeover = survivor.lines().find((l) => l.msg === TAKEOVER && l.key === `campaign:${order.uuid}`);
    expect(takeover).toBeDefined();
    const tookOverAt = Date.parse(takeover!.time as string);
    expect(tookOverAt - killedAt).toBeLessThanOrEqual(LIVE_LEASE_MS + POLL_INTERVAL_MS);
    expect(await survivor.metric('reward_gateway_live_leases')).toBe(1);
    expect(await survivor.metric('reward_gateway_live_takeovers_total')).toBe(1);
  }, 60_000);
});
