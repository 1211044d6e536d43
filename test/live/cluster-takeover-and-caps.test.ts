import type { Client } from 'graphql-ws';
import { afterAll, describe, expect } from 'vitest';
import { bearer, KEYS, KEYS_ENV } from '../security/keys.js';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica, within } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeSse, subscribeWs, wsClient, type ResultStream } from '../support/live.js';
import { test as it } from '../support/test.js';

// Two replica processes on one redis-server (and one sandbox) keep the cluster's promises to a key and to a
// watched order: LIVE_MAX_SUBSCRIPTIONS_PER_KEY counts one API key's subscriptions on both replicas together,
// WebSocket and SSE alike, and each key apart; and when the leader of an order is killed (kill -9, no release),
// the other replica polls it within LIVE_LEASE_MS + one POLL_INTERVAL_MS, as the contract states. One pair of
// replicas serves both: the cap's subscriptions all end before the takeover, which kills one.

const MAX = 3;
const ACCOUNT = 'subscription { giftStatusChanged { gift { uuid } } }';
const FUNDS = 'subscription { fundsChanged { cursor } }';
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
    ...KEYS_ENV,
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
    POLL_INTERVAL_FLOOR_MS: '10',
    LIVE_LEASE_MS: String(LIVE_LEASE_MS),
    // Generous: a replica stalled on two busy cores must not count Redis as down (cluster-redis-failure.test.ts does that).
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    LIVE_MAX_SUBSCRIPTIONS_PER_KEY: String(MAX),
  };
  replicas = await Promise.all([0, 1].map(() => startReplica(env)));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await killReplicas();
});

const client = (replica: Replica, key: { key: string }) => {
  const c = wsClient(replica.url, { connectionParams: bearer(key) });
  clients.push(c);
  return c;
};
const sum = async (name: string) => (await Promise.all(replicas.map((r) => r.metric(name)))).reduce((a, b) => a + b, 0);
const subscribers = () => sum('reward_gateway_live_subscribers');
const codeOf = (stream: ResultStream) => stream.received[0]?.errors?.[0]?.extensions?.code as string | undefined;

describe('subscriptions per API key across the cluster', { timeout: 60_000 }, () => {
  const streams: ResultStream[] = [];
  const sse = (url: string, key: { key: string }) => {
    const stream = subscribeSse(url, ACCOUNT, {}, bearer(key));
    streams.push(stream);
    return stream;
  };

  // Every subscription of the cap's ends, and with it every lease: the takeover below counts its key's alone.
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await eventually(async () => (await subscribers()) === 0 && (await sum('reward_gateway_live_leases')) === 0, PROBE_MS);
  });

  it('refuses a key past its cap on either replica, over either transport, and serves another key', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const onA = client(a, KEYS.reader);
    const open = [subscribeWs(onA, ACCOUNT), subscribeWs(onA, ACCOUNT), sse(b.url, KEYS.reader)];
    await eventually(async () => (await subscribers()) === MAX, PROBE_MS);
    expect(open.map(codeOf)).toEqual([undefined, undefined, undefined]);

    for (const refused of [subscribeWs(client(b, KEYS.reader), ACCOUNT), sse(a.url, KEYS.reader)]) {
      expect(await refused.ended).toBe('complete');
      expect(codeOf(refused)).toBe('SUBSCRIPTIONS_PER_KEY_EXCEEDED');
      expect(refused.received[0].errors[0].message).toContain(`maximum of ${MAX} subscriptions`);
    }

    // Another key has its own count, fundsChanged included.
    const other = subscribeWs(client(b, KEYS.treasurer), FUNDS);
    await eventually(async () => (await subscribers()) === MAX + 1, PROBE_MS);
    expect(other.received).toEqual([]);

    // A subscription ending on one replica makes room on the other.
    open[0]!.close();
    await eventually(async () => (await subscribers()) === MAX, PROBE_MS);
    const onB = client(b, KEYS.reader);
    // The end is told to Redis after the replica counts it: until then a new subscription may still be refused.
    const admitted = await eventually(async () => {
      const attempt = subscribeWs(onB, ACCOUNT);
      let ended = false;
      void attempt.ended.then(() => (ended = true));
      await eventually(async () => ended || (await subscribers()) === MAX + 1, PROBE_MS);
      return ended ? null : attempt;
    }, PROBE_MS);
    expect(codeOf(admitted)).toBeUndefined();
  });
});

// Takeover time: the takeover is logged by the replica that claims the lapsed lease, at the start of the poll tick
// that then polls, so its timestamp is that first poll's.
describe('takeover time', () => {
  it('the new leader polls within LIVE_LEASE_MS + one interval of the leader being killed', async ({ sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 3 }); // one stays unredeemed, so the key is still watched at the end
    const gifts = ((await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
    // A key of its own: the cap's keys are spent on the test above.
    const streams = replicas.map((replica) => subscribeWs(client(replica, KEYS.writer), GIFT_CHANGES, { campaign: order.id }));
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
