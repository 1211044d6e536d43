import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, startReplica } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { RESUMABLE_GIFT_CHANGES, subscribeWs, wsClient, type ResultStream } from '../support/live.js';
import type { RedisTopology } from '../support/redis-topologies.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// The failover of Redis as operators run it (Sentinel, Redis Cluster), under three replicas that serve
// subscribers of several orders: the primary holding the first order's keys is killed (SIGKILL), a change is
// made to every order while its replica is being promoted, and every subscriber of every replica receives it
// exactly once (the replicas poll locally while Redis is away, then the log and the view settle it); no
// subscription ends; afterwards the upstream sees one poller per order again (counted by the sandbox).

const ORDERS = 3;
const PER_ORDER_PER_REPLICA = 2;
const POLL_INTERVAL_MS = 100;
const LIVE_LEASE_MS = 1_000;
/** Long enough that two busy cores do not make Redis look hung when it is not. */
const COMMAND_TIMEOUT_MS = 1_000;

interface Order {
  id: string;
  uuid: string;
  gifts: string[];
}

interface Watcher {
  order: Order;
  stream: ResultStream;
}

export function failoverSuite(name: string, startTopology: () => Promise<RedisTopology>): void {
  let sandbox: TestSandbox;
  let topology: RedisTopology;
  let replicas: Replica[];
  let prefix: string;
  const clients: Client[] = [];
  const orders: Order[] = [];
  const watchers: Watcher[] = [];

  const sum = async (metric: string, labels?: Record<string, string>) =>
    (await Promise.all(replicas.map((r) => r.metric(metric, labels)))).reduce((a, b) => a + b, 0);
  const uuidsOf = (stream: ResultStream) => stream.received.map((r) => r.data?.giftStatusChanged?.gift.uuid as string);
  const redisState = async (r: Replica) => ((await (await fetch(`${r.url}/ready`)).json()) as { redis: string }).redis;
  const redeemAll = async (index: number) => {
    for (const order of orders) await sandbox.control.redeem(order.gifts[index]!);
  };
  const receivedAll = (index: number) => () => watchers.every((w) => uuidsOf(w.stream).includes(w.order.gifts[index]!));
  const openStreams = async () => {
    const ends = await Promise.all(watchers.map((w) => Promise.race([w.stream.ended, new Promise((resolve) => setTimeout(resolve, 0, 'open'))])));
    return ends.filter((end) => end !== 'open');
  };

  beforeAll(async () => {
    [sandbox, topology] = await Promise.all([startTestSandbox(), startTopology()]);
    prefix = `test-${randomUUID().slice(0, 8)}:`;
    const env = {
      ...topology.env,
      REWARD_API_URL: sandbox.sandbox.baseUrl,
      REWARD_API_TOKEN: sandbox.sandbox.token,
      REDIS_KEY_PREFIX: prefix,
      POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
      POLL_INTERVAL_FLOOR_MS: '10',
      LIVE_LEASE_MS: String(LIVE_LEASE_MS),
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    };
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
    for (let i = 0; i < ORDERS; i++) {
      const order = await createEmailOrder(sandbox, { recipients: 4 });
      const gifts = (await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];
      orders.push({ ...order, gifts: gifts.map((g) => g.uuid) });
    }
    for (const replica of replicas) {
      const client = wsClient(replica.url);
      clients.push(client);
      for (const order of orders) {
        for (let i = 0; i < PER_ORDER_PER_REPLICA; i++)
          watchers.push({ order, stream: subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id }) });
      }
    }
    // A subscription is counted once accepted, from its replica's view of the order: every change made after
    // this is an event on every replica (no need to wait for polls, test/live/subscription-start.test.ts).
    await eventually(async () => (await sum('reward_gateway_live_subscribers')) === watchers.length, PROBE_MS);
    await eventually(async () => (await sum('reward_gateway_live_leases')) === ORDERS, PROBE_MS);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await killReplicas();
    await topology?.stop();
    await sandbox?.close();
  });

  describe(name, () => {
    it('a change made while the primary is failed over reaches every subscriber once; no subscription ends; one poller per order after', async () => {
      await redeemAll(0);
      await eventually(receivedAll(0), 25, { ms: 20_000, what: 'the change before the failover' });

      const key = `${prefix}{campaign:${orders[0]!.uuid}}:lease`;
      expect(await topology.primaryOf(key).then((a) => a.length)).toBeGreaterThan(0);
      const { promoted } = await topology.killPrimary(key);
      // During the failover: the replicas notice and poll locally.
      // Each replica must notice, but not all at one instant: one that reconnects to the promoted primary before
      // the last has noticed is still a replica that noticed.
      const noticed = new Set<number>();
      await eventually(
        async () => {
          (await Promise.all(replicas.map(redisState))).forEach((state, i) => state === 'down' && noticed.add(i));
          return noticed.size === replicas.length;
        },
        PROBE_MS,
        { ms: 20_000, what: 'every replica to report Redis down' },
      );
      await redeemAll(1);
      await eventually(receivedAll(1), 25, { ms: 20_000, what: 'the change during the failover' });
      await promoted;

      await eventually(async () => (await Promise.all(replicas.map(redisState))).every((s) => s === 'up'), PROBE_MS, {
        ms: 20_000,
        what: 'every replica to report Redis up again',
      });
      await redeemAll(2);
      await eventually(receivedAll(2), 25, { ms: 20_000, what: 'the change after the promotion' });
      // One poller per order again, and the upstream sees that poller's requests only.
      await eventually(async () => (await sum('reward_gateway_live_leases')) === ORDERS, PROBE_MS);
      await new Promise((resolve) => setTimeout(resolve, 2 * LIVE_LEASE_MS));
      const before = await sandbox.control.stats();
      await new Promise((resolve) => setTimeout(resolve, 20 * POLL_INTERVAL_MS));
      const after = await sandbox.control.stats();
      const gets = after.requests['GET /gifts']! - before.requests['GET /gifts']!;
      // Twenty intervals of three orders: ~60 requests from one poller each; a poller per replica would be ~180.
      expect(gets).toBeGreaterThan(0);
      expect(gets).toBeLessThanOrEqual(ORDERS * 20 * 1.5);

      for (const w of watchers) expect(uuidsOf(w.stream)).toEqual([0, 1, 2].map((i) => w.order.gifts[i]));
      expect(await openStreams()).toEqual([]);
      // Every replica hears of every order's appends again, from the promoted primary too.
      for (const order of orders) expect(await topology.subscribers(`${prefix}{campaign:${order.uuid}}:appended`)).toBe(replicas.length);
    });
  });
}
