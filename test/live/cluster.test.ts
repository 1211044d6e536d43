import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, describe, expect } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeWs, wsClient, type ResultStream } from '../support/live.js';
import { test as it } from '../support/test.js';

// Cluster mode across real processes: three gateway replicas on one redis-server of the suite's own and one
// sandbox. The upstream pays per watched order, not per replica; every subscriber on every replica gets every
// event once; a replica killed with SIGKILL is replaced within a lease; its clients resume elsewhere with
// their last cursor; Redis stopping degrades delivery but never stops it.

const ORDERS = 10;
const PER_ORDER_PER_REPLICA = 10;
const GIFTS = 5;
const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID, $after: String) {
    giftStatusChanged(campaign: $campaign, after: $after) {
      gift {
        uuid
        status
      }
      previousStatus
      cursor
    }
  }
`;

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

let replicas: Replica[];
const clients: Client[] = [];
let orders: Order[];
let watchers: Watcher[];

const sum = async (list: Replica[], name: string, labels?: Record<string, string>) =>
  (await Promise.all(list.map((r) => r.metric(name, labels)))).reduce((a, b) => a + b, 0);
/** Resolves once the live replicas have made `count` more campaign polls between them. */
async function polls(list: Replica[], count: number): Promise<void> {
  const target = (await sum(list, 'reward_gateway_live_polls_total', { feed: 'campaign' })) + count;
  await eventually(async () => (await sum(list, 'reward_gateway_live_polls_total', { feed: 'campaign' })) >= target, PROBE_MS);
}
const uuidsOf = (stream: ResultStream) => stream.received.map((r) => r.data?.giftStatusChanged?.gift.uuid as string);

// The file's sandbox and redis-server are fixtures, stopped after the file once the replicas are gone; the
// replicas are processes of their own, started and killed here.
it.beforeAll(async ({ sandbox, redis }) => {
  const env = {
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: '100',
    POLL_INTERVAL_FLOOR_MS: '10',
    // Twenty intervals: three processes share two busy cores, and a lease lapsing under a stalled event loop
    // hands a key over (correctly: the stale holder is fenced) without anyone dying.
    LIVE_LEASE_MS: '2000',
    // Generous: a replica stalled on two busy cores must not count Redis as down (cluster-redis-failure.test.ts does that).
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    LIVE_MAX_WATCHED_PER_KEY: String(ORDERS + 1),
  };
  replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
  orders = [];
  for (let i = 0; i < ORDERS; i++) {
    const order = await createEmailOrder(sandbox, { recipients: GIFTS });
    const gifts = (await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];
    orders.push({ ...order, gifts: gifts.map((g) => g.uuid) });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await killReplicas();
});

describe('cluster mode (3 processes, 1 Redis)', { timeout: 90_000 }, () => {
  it(`${ORDERS * PER_ORDER_PER_REPLICA * 3} subscribers over 3 replicas cost the upstream one poller per order, and each gets each event once`, async ({
    sandbox,
  }) => {
    watchers = [];
    for (const replica of replicas) {
      const sockets = [wsClient(replica.url), wsClient(replica.url)];
      clients.push(...sockets);
      for (const order of orders) {
        for (let i = 0; i < PER_ORDER_PER_REPLICA; i++) {
          watchers.push({ replica, order, stream: subscribeWs(sockets[i % 2]!, GIFT_CHANGES, { campaign: order.id }) });
        }
      }
    }
    await eventually(async () => {
      const refused = watchers.find((w) => w.stream.received[0]?.errors);
      if (refused) throw new Error(`subscription refused: ${JSON.stringify(refused.stream.received[0].errors)}`);
      return (await sum(replicas, 'reward_gateway_live_subscribers')) === watchers.length;
    }, PROBE_MS);
    // One lease per order across the cluster, and only lease holders poll.
    await eventually(async () => (await sum(replicas, 'reward_gateway_live_leases')) === ORDERS, PROBE_MS);
    await polls(replicas, ORDERS);

    const pollCount = () => sum(replicas, 'reward_gateway_live_polls_total', { feed: 'campaign' });
    const [before, pollsBefore] = await Promise.all([sandbox.control.stats(), pollCount()]);
    await polls(replicas, ORDERS * 20);
    const [after, pollsAfter] = await Promise.all([sandbox.control.stats(), pollCount()]);
    expect(await sum(replicas, 'reward_gateway_live_leases')).toBe(ORDERS);
    // A quiet created order costs one GET /gifts per poll, whoever polls it: the upstream saw the polls of the
    // ten lease holders and nothing else (three pollers per order would triple it). The metrics of three
    // processes are read one after another, so a few polls land on either side of the window.
    const gets = after.requests['GET /gifts']! - before.requests['GET /gifts']!;
    expect(gets).toBeGreaterThan(0);
    expect(gets).toBeLessThan((pollsAfter - pollsBefore) * 1.5);
    const otherRoutes = Object.fromEntries(
      Object.keys(after.requests)
        .filter((route) => route !== 'GET /gifts' && after.requests[route] !== before.requests[route])
        .map((route) => [route, after.requests[route]! - (before.requests[route] ?? 0)]),
    );
    expect(otherRoutes).toEqual({});

    for (const order of orders) await sandbox.control.redeem(order.gifts[0]!);
    await eventually(() => watchers.every((w) => w.stream.received.length >= 1));
    await polls(replicas, ORDERS * 3);
    for (const w of watchers) expect(uuidsOf(w.stream)).toEqual([w.order.gifts[0]]);
  });

  it('caps the orders one API key watches across the cluster (LIVE_MAX_WATCHED_PER_KEY)', async ({ sandbox }) => {
    const extra = [await createEmailOrder(sandbox, { recipients: 1 }), await createEmailOrder(sandbox, { recipients: 1 })];
    const first = subscribeWs(clients[0]!, GIFT_CHANGES, { campaign: extra[0]!.id });
    await eventually(
      async () => first.received.length > 0 || (await replicas[0]!.metric('reward_gateway_live_subscribers')) === watchers.length / 3 + 1,
      PROBE_MS,
    );
    expect(first.received).toEqual([]);
    // Another replica: the key already watches ORDERS + 1 orders cluster-wide.
    const refused = subscribeWs(clients[2]!, GIFT_CHANGES, { campaign: extra[1]!.id });
    expect(await refused.ended).toBe('complete');
    expect(refused.received[0]?.errors?.[0]?.extensions?.code).toBe('WATCH_LIMIT_EXCEEDED');
    first.close();
    // Once the first one ends, the key has room again, on any replica.
    await eventually(async () => (await replicas[0]!.metric('reward_gateway_live_subscribers')) === watchers.length / 3, PROBE_MS);
    const admitted = subscribeWs(clients[2]!, GIFT_CHANGES, { campaign: extra[1]!.id });
    await eventually(async () => (await replicas[1]!.metric('reward_gateway_live_subscribers')) === watchers.length / 3 + 1, PROBE_MS);
    expect(admitted.received).toEqual([]);
    admitted.close();
    await eventually(async () => (await replicas[1]!.metric('reward_gateway_live_subscribers')) === watchers.length / 3, PROBE_MS);
  });

  it('kill -9 of the busiest leader: survivors take over, deliver once, and its clients resume elsewhere with their cursor', async ({ sandbox }) => {
    const leases = await Promise.all(replicas.map((r) => r.metric('reward_gateway_live_leases')));
    const victim = replicas[leases.indexOf(Math.max(...leases))]!;
    const survivors = replicas.filter((r) => r !== victim);
    const led = Math.max(...leases);
    expect(led).toBeGreaterThan(0);
    const lastCursor = new Map(
      orders.map((o) => [
        o.uuid,
        watchers.find((w) => w.replica === victim && w.order === o)!.stream.received.at(-1)!.data.giftStatusChanged.cursor as string,
      ]),
    );

    await victim.kill('SIGKILL');
    replicas = survivors;
    for (const order of orders) await sandbox.control.redeem(order.gifts[1]!);

    const surviving = watchers.filter((w) => w.replica !== victim);
    await eventually(() => surviving.every((w) => w.stream.received.length >= 2));
    await eventually(async () => (await sum(survivors, 'reward_gateway_live_leases')) === ORDERS, PROBE_MS);
    await polls(survivors, ORDERS * 3);
    for (const w of surviving) expect(uuidsOf(w.stream)).toEqual([w.order.gifts[0], w.order.gifts[1]]);
    expect(await sum(survivors, 'reward_gateway_live_takeovers_total')).toBeGreaterThanOrEqual(led);
    const takeoverLines = survivors.flatMap((r) => r.lines()).filter((l) => l.msg === 'live: took over a key whose poller vanished');
    expect(takeoverLines.length).toBeGreaterThanOrEqual(led);

    // A client of the dead replica reconnects to a survivor with its last cursor: exactly what it missed.
    const resumeClient = wsClient(survivors[0]!.url);
    clients.push(resumeClient);
    const resumed = orders.map((order) => ({
      order,
      stream: subscribeWs(resumeClient, GIFT_CHANGES, { campaign: order.id, after: lastCursor.get(order.uuid) }),
    }));
    await eventually(() => resumed.every((r) => r.stream.received.length >= 1));
    await polls(survivors, ORDERS * 2);
    for (const r of resumed) {
      expect(uuidsOf(r.stream)).toEqual([r.order.gifts[1]]);
      r.stream.close();
    }
  });

  it('Redis stopped: queries and mutations work, subscriptions keep delivering, and exactly-once returns with Redis', async ({ sandbox, redis }) => {
    const [a, b] = replicas as [Replica, Replica];
    await redis.stop();
    await eventually(async () => (await a.metric('reward_gateway_redis_up')) === 0 && (await b.metric('reward_gateway_redis_up')) === 0, PROBE_MS);

    const query = await fetch(`${a.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ funds { balances { currency } } }' }),
    });
    expect((await query.json()).data.funds.balances.length).toBeGreaterThan(0);
    const mutation = await fetch(`${b.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { addFunds(input: { id: "${randomUUID()}", amountInCents: 25000, currency: "USD" }) { __typename } }`,
      }),
    });
    expect((await mutation.json()).data.addFunds.__typename).not.toMatch(/Error|Unknown/);
    const ready = await (await fetch(`${a.url}/ready`)).json();
    expect(ready).toMatchObject({ status: 'ready', redis: 'down' });

    // Degraded: each replica polls for its own subscribers (after a baseline of its own).
    await Promise.all([polls([a], ORDERS * 2), polls([b], ORDERS * 2)]);
    for (const order of orders) await sandbox.control.redeem(order.gifts[2]!);
    const surviving = watchers.filter((w) => replicas.includes(w.replica));
    await eventually(() => surviving.every((w) => uuidsOf(w.stream).includes(w.order.gifts[2]!)));

    await redis.start();
    await eventually(async () => (await a.metric('reward_gateway_redis_up')) === 1 && (await b.metric('reward_gateway_redis_up')) === 1, PROBE_MS);
    expect(await (await fetch(`${b.url}/ready`)).json()).toMatchObject({ status: 'ready', redis: 'up' });
    await eventually(async () => (await sum(replicas, 'reward_gateway_live_leases')) === ORDERS, PROBE_MS);
    await polls(replicas, ORDERS * 3);
    const seen = new Map(surviving.map((w) => [w, w.stream.received.length]));
    for (const order of orders) await sandbox.control.redeem(order.gifts[3]!);
    await eventually(() => surviving.every((w) => uuidsOf(w.stream).includes(w.order.gifts[3]!)));
    await polls(replicas, ORDERS * 3);
    for (const w of surviving) expect(uuidsOf(w.stream).slice(seen.get(w))).toEqual([w.order.gifts[3]]);
  });
});
