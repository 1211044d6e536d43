import type { Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/live/cursor.js';
import {
  eventually,
  PROBE_MS,
  freePort,
  killReplicas,
  type Replica,
  replicaEnv,
  startRedis,
  startReplica,
  type TestRedis,
} from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { RESUMABLE_GIFT_CHANGES, subscribeWs, wsClient, type ResultStream } from '../support/live.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// Redis failing under three replicas that serve subscribers: hung (SIGSTOP, its connections stay open and
// nothing answers), then killed (SIGKILL) and restarted empty. Through both, every subscriber of every replica
// receives every change exactly once, while Redis is away (each replica polls locally, diffing against what
// its subscribers were handed) and after (one poller per key again, the log seeded from those states); no
// subscription ends; /ready and reward_gateway_redis_up say what happened. Last, Redis paused with CLIENT PAUSE
// (every command waits, no socket closes, the process runs): a subscription still delivers while it hangs.

const ORDERS = 2;
const PER_ORDER_PER_REPLICA = 2;
const POLL_INTERVAL_MS = 100;
/** Long against the command timeout, so delivery within the hang proves the timeout, not the lease, bounds it. */
const LIVE_LEASE_MS = 4_000;
/** Short against the lease, long enough that two busy cores do not make Redis look hung when it is not. */
const COMMAND_TIMEOUT_MS = 1_000;

interface Order {
  id: string;
  uuid: string;
  gifts: string[];
}

interface Watcher {
  replica: Replica;
  order: Order;
  stream: ResultStream;
}

let sandbox: TestSandbox;
let redis: TestRedis;
let replicas: Replica[];
const clients: Client[] = [];
const orders: Order[] = [];
const watchers: Watcher[] = [];

const sum = async (name: string, labels?: Record<string, string>) =>
  (await Promise.all(replicas.map((r) => r.metric(name, labels)))).reduce((a, b) => a + b, 0);
const uuidsOf = (stream: ResultStream) => stream.received.map((r) => r.data?.giftStatusChanged?.gift.uuid as string);
const everyReplica = async (check: (r: Replica) => Promise<boolean>) => (await Promise.all(replicas.map(check))).every(Boolean);
/** What /ready says of Redis; it answers 200 whatever Redis does (the replica serves, degraded or not). */
const redisState = async (r: Replica) => {
  const response = await fetch(`${r.url}/ready`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { redis: string }).redis;
};
const openStreams = async () => {
  const ends = await Promise.all(watchers.map((w) => Promise.race([w.stream.ended, new Promise((resolve) => setTimeout(resolve, 0, 'open'))])));
  return ends.filter((end) => end !== 'open');
};
/** Resolves once the cluster has made `count` more campaign polls. */
async function polls(count: number): Promise<void> {
  const target = (await sum('reward_gateway_live_polls_total', { feed: 'campaign' })) + count;
  await eventually(async () => (await sum('reward_gateway_live_polls_total', { feed: 'campaign' })) >= target, PROBE_MS);
}
async function redeemAll(index: number): Promise<void> {
  for (const order of orders) await sandbox.control.redeem(order.gifts[index]!);
}
const receivedAll = (index: number) => () => watchers.every((w) => uuidsOf(w.stream).includes(w.order.gifts[index]!));
function expectExactly(indexes: number[]): void {
  for (const w of watchers) expect(uuidsOf(w.stream)).toEqual(indexes.map((i) => w.order.gifts[i]));
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  redis = await startRedis();
  const env = {
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
    POLL_INTERVAL_FLOOR_MS: '10',
    LIVE_LEASE_MS: String(LIVE_LEASE_MS),
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
  };
  replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
  for (let i = 0; i < ORDERS; i++) {
    const order = await createEmailOrder(sandbox, { recipients: 5 });
    const gifts = (await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];
    orders.push({ ...order, gifts: gifts.map((g) => g.uuid) });
  }
  for (const replica of replicas) {
    const client = wsClient(replica.url);
    clients.push(client);
    for (const order of orders) {
      for (let i = 0; i < PER_ORDER_PER_REPLICA; i++)
        watchers.push({ replica, order, stream: subscribeWs(client, RESUMABLE_GIFT_CHANGES, { campaign: order.id }) });
    }
  }
  await eventually(async () => (await sum('reward_gateway_live_subscribers')) === watchers.length, PROBE_MS);
  await eventually(async () => (await sum('reward_gateway_live_leases')) === ORDERS, PROBE_MS);
  await polls(ORDERS * 2);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await killReplicas();
  await redis?.signal('SIGCONT').catch(() => undefined);
  await redis?.stop();
  await sandbox?.close();
});

describe('Redis hung, killed, restarted empty (3 replicas)', () => {
  it('hung (SIGSTOP): a change reaches every subscriber once while Redis hangs, within the command timeout, and once after', async () => {
    await redis.signal('SIGSTOP');
    const stoppedAt = Date.now();
    await redeemAll(0);
    await eventually(receivedAll(0));
    // The client used to wait for the lease (4 s) on every command; the command timeout (1 s) bounds it now.
    expect(Date.now() - stoppedAt).toBeLessThan(LIVE_LEASE_MS - 500);
    expect(await Promise.all(replicas.map(redisState))).toEqual(['down', 'down', 'down']);
    expect(await sum('reward_gateway_redis_up')).toBe(0);

    await redis.signal('SIGCONT');
    await eventually(() => everyReplica(async (r) => (await redisState(r)) === 'up'), PROBE_MS);
    expect(await sum('reward_gateway_redis_up')).toBe(3);
    await redeemAll(1);
    await eventually(receivedAll(1));
    await polls(ORDERS * 5);
    expectExactly([0, 1]);
    expect(await openStreams()).toEqual([]);
    // One line per transition, naming the server: down (a warning, why), up again (info). A loaded machine may
    // see Redis flap while it works through what queued up during the hang: more pairs, never two of a kind.
    for (const replica of replicas) {
      const lines = replica.lines().filter((l) => l.msg.startsWith('redis:'));
      expect(lines.map((l) => l.level).join(' ')).toMatch(/^info( warn info)+$/);
      for (const line of lines) expect(line).toMatchObject({ redis: new URL(redis.url).host });
      expect(lines[1]!.reason).toMatch(/no answer within 1000 ms/);
    }
  });

  it('killed (SIGKILL) and restarted empty: every change reaches every subscriber once, no subscription ends, one poller per order again', async () => {
    const before = new Map(watchers.map((w) => [w, w.stream.received.at(-1)!.data.giftStatusChanged.cursor as string]));
    await redis.signal('SIGKILL');
    await redeemAll(2);
    await eventually(receivedAll(2));
    expect(await Promise.all(replicas.map(redisState))).toEqual(['down', 'down', 'down']);
    expect(await sum('reward_gateway_redis_up')).toBe(0);

    await redis.start();
    await eventually(() => everyReplica(async (r) => (await redisState(r)) === 'up'), PROBE_MS);
    const upAt = Date.now();
    expect(await sum('reward_gateway_redis_up')).toBe(3);
    await redeemAll(3);
    await eventually(receivedAll(3));
    // Back to one poller per order within two leases, and the upstream sees that poller's requests only.
    await eventually(async () => (await sum('reward_gateway_live_leases')) === ORDERS, PROBE_MS);
    expect(Date.now() - upAt).toBeLessThan(2 * LIVE_LEASE_MS);
    const statsBefore = await sandbox.control.stats();
    await new Promise((resolve) => setTimeout(resolve, 20 * POLL_INTERVAL_MS));
    const statsAfter = await sandbox.control.stats();
    const gets = statsAfter.requests['GET /gifts']! - statsBefore.requests['GET /gifts']!;
    // Twenty intervals of two orders: ~40 requests from one poller each; three pollers each would be ~120.
    expect(gets).toBeGreaterThan(0);
    expect(gets).toBeLessThanOrEqual(ORDERS * 20 * 1.5);
    expectExactly([0, 1, 2, 3]);
    expect(await openStreams()).toEqual([]);

    // A cursor of the log before the restart was valid once: CURSOR_EXPIRED, saying why.
    const [watcher] = watchers;
    const stale = subscribeWs(clients[0]!, RESUMABLE_GIFT_CHANGES, { campaign: watcher!.order.id, after: before.get(watcher!) });
    expect(await stale.ended).toBe('complete');
    expect(stale.received[0]?.errors?.[0]?.extensions?.code).toBe('CURSOR_EXPIRED');
    expect(stale.received[0]?.errors?.[0]?.message).toMatch(/restarted|reset|another/i);
  });

  it('a cursor never issued (past the log end, or a position above 2^64) is BAD_USER_INPUT, not CURSOR_EXPIRED', async () => {
    const [watcher] = watchers.filter((w) => w.replica === replicas[0]);
    // A cursor of Redis's log, as the cluster issues them when Redis is well.
    await sandbox.control.redeem(watcher!.order.gifts[4]!);
    const [event] = await watcher!.stream.take(5).then((all) => all.slice(-1));
    const cursor = event.data.giftStatusChanged.cursor as string;
    const [key, epoch, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string, string];
    const [ms] = id.split('-');
    for (const forged of [`${Number(ms) + 86_400_000}-0`, `${ms}-99999999999999999999`, '99999999999999999999-0']) {
      const stream = subscribeWs(clients[0]!, RESUMABLE_GIFT_CHANGES, {
        campaign: watcher!.order.id,
        after: encodeCursor({ key, epoch, id: forged }),
      });
      expect(await stream.ended).toBe('complete');
      expect(stream.received[0]?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('a REDIS_URL that cannot be reached at start is logged (host, never credentials), and the replica serves degraded', async () => {
    const url = `redis://user:s3cret@127.0.0.1:${await freePort()}/0`;
    const lonely = await startReplica({ REWARD_API_URL: sandbox.sandbox.baseUrl, REWARD_API_TOKEN: sandbox.sandbox.token, REDIS_URL: url });
    try {
      const line = lonely.lines().find((l) => l.msg.startsWith('redis: unreachable'));
      expect(line).toMatchObject({ level: 'warn', redis: new URL(url).host });
      expect(line!.reason).toMatch(/cannot connect/);
      expect(JSON.stringify(lonely.lines())).not.toContain('s3cret');
      expect(await redisState(lonely)).toBe('down');
    } finally {
      await lonely.kill();
    }
  });
});

// One replica of the three is enough: the others watch nothing of this order.
describe('Redis that hangs with its connections open (CLIENT PAUSE)', () => {
  const PAUSE_MS = 6_000;

  it('subscriptions keep delivering while Redis hangs with its connections open, and go back to Redis after', async () => {
    const [replica] = replicas as [Replica];
    const order = await createEmailOrder(sandbox, { recipients: 3 });
    const gifts = ((await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    const subscribed = await replica.metric('reward_gateway_live_subscribers');
    const stream = subscribeWs(clients[0]!, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
    // Accepted once the replica has a view of the order: a redeem after that is an event, not part of the state.
    await eventually(async () => (await replica.metric('reward_gateway_live_subscribers')) > subscribed, PROBE_MS);
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
