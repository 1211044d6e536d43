import type { Client } from 'graphql-ws';
import { afterAll, describe, expect } from 'vitest';
import { bearer, KEYS, KEYS_ENV } from '../security/keys.js';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { subscribeSse, subscribeWs, wsClient, type ResultStream } from '../support/live.js';
import { test as it } from '../support/test.js';

// LIVE_MAX_SUBSCRIPTIONS_PER_KEY holds for the cluster: two replica processes on one redis-server count one
// API key's subscriptions together, WebSocket and SSE alike, and each key apart.

const MAX = 3;
const ACCOUNT = 'subscription { giftStatusChanged { gift { uuid } } }';
const FUNDS = 'subscription { fundsChanged { cursor } }';

let replicas: Replica[];
const clients: Client[] = [];

// The file's sandbox and redis-server are fixtures, stopped after the file once the replicas are gone; the
// replicas are processes of their own, started and killed here.
it.beforeAll(async ({ sandbox, redis }) => {
  const env = {
    ...KEYS_ENV,
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: '100',
    POLL_INTERVAL_FLOOR_MS: '10',
    LIVE_LEASE_MS: '2000',
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
const subscribers = async () => (await Promise.all(replicas.map((r) => r.metric('reward_gateway_live_subscribers')))).reduce((a, b) => a + b, 0);
const codeOf = (stream: ResultStream) => stream.received[0]?.errors?.[0]?.extensions?.code as string | undefined;

describe('subscriptions per API key across the cluster', { timeout: 60_000 }, () => {
  it('refuses a key past its cap on either replica, over either transport, and serves another key', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const onA = client(a, KEYS.reader);
    const open = [subscribeWs(onA, ACCOUNT), subscribeWs(onA, ACCOUNT), subscribeSse(b.url, ACCOUNT, {}, bearer(KEYS.reader))];
    await eventually(async () => (await subscribers()) === MAX, PROBE_MS);
    expect(open.map(codeOf)).toEqual([undefined, undefined, undefined]);

    for (const refused of [subscribeWs(client(b, KEYS.reader), ACCOUNT), subscribeSse(a.url, ACCOUNT, {}, bearer(KEYS.reader))]) {
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
      await eventually(async () => ended || (await subscribers()) === MAX + 1);
      return ended ? null : attempt;
    }, PROBE_MS);
    expect(codeOf(admitted)).toBeUndefined();
  });
});
