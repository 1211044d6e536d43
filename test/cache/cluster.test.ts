import { Redis } from 'ioredis';
import { afterAll, describe, expect } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeSse } from '../support/live.js';
import { test as it } from '../support/test.js';

// The read cache across two gateway processes on one redis-server: the replicas share one fill per entry (50
// concurrent reads spread over both cost one cold read), a write on one is seen by a read on the other right
// after it answers, and nothing of the upstream token reaches a Redis key or value.

const DASHBOARD = /* GraphQL */ `
  query ($ref: ID!) {
    campaign(ref: $ref) {
      id
      status
      observedAt
      gifts(first: 10) {
        edges {
          node {
            uuid
            status
          }
        }
      }
    }
  }
`;
const GIFT = `query ($uuid: ID!) { gift(uuid: $uuid) { status } }`;

let replicas: Replica[];
let prefix: string;

async function gql(replica: Replica, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

it.beforeAll(async ({ sandbox, redis }) => {
  // A replica's first operations block its event loop for a while (compiling), long enough on a busy machine
  // for Redis commands to time out at the default 500 ms and the cache to fall back to memory alone: the
  // suite is about the replicas' steady state, so they are warmed up first and given a longer timeout.
  const env: Record<string, string> = {
    ...replicaEnv(sandbox, redis),
    CACHE_TTL_MS: '60000',
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    POLL_INTERVAL_MS: '200',
    POLL_INTERVAL_FLOOR_MS: '100',
    UPSTREAM_RETRY_ATTEMPTS: '1',
  };
  prefix = env.REDIS_KEY_PREFIX!;
  replicas = await Promise.all([startReplica(env), startReplica(env)]);
  const warmUp = await createEmailOrder(sandbox, { recipients: 1 });
  for (let i = 0; i < 3; i++) await Promise.all(replicas.map((replica) => gql(replica, DASHBOARD, { ref: warmUp.id })));
});

afterAll(() => killReplicas());

describe('cluster mode', () => {
  it('50 concurrent reads over two replicas cost one cold read of each part', async ({ sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 3 });
    const before = (await sandbox.control.stats()).requests;
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => gql(replicas[i % 2]!, DASHBOARD, { ref: order.id })));
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    const after = (await sandbox.control.stats()).requests;
    expect(after['GET /campaign/:id']! - (before['GET /campaign/:id'] ?? 0)).toBe(1);
    expect(after['GET /gifts']! - (before['GET /gifts'] ?? 0)).toBe(1);
    expect(new Set(answers.map((a) => a.data.campaign.observedAt)).size).toBe(1);
    const hits =
      (await replicas[0]!.metric('reward_gateway_cache_reads_total', { outcome: 'hit' })) +
      (await replicas[1]!.metric('reward_gateway_cache_reads_total', { outcome: 'hit' }));
    expect(hits).toBeGreaterThanOrEqual(98 + 2 * 2 * 2);
  });

  it('a write on one replica, then a read on the other, shows the write', async ({ sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const [a, b] = replicas as [Replica, Replica];
    const listed = await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}&limit=100`);
    const uuid = listed.body.gifts[0].uuid as string;
    // Both replicas hold the reward and the order's page in memory, and Redis holds them.
    for (const replica of [a, b]) {
      expect((await gql(replica, GIFT, { uuid })).data.gift.status).toBe('SENT_AND_REDEEMABLE');
      await gql(replica, DASHBOARD, { ref: order.id });
    }
    const cancelled = await gql(a, `mutation ($uuid: ID!) { cancelGift(uuid: $uuid) { __typename } }`, { uuid });
    expect(cancelled.data.cancelGift.__typename).toBe('GiftPayload');
    expect((await gql(b, GIFT, { uuid })).data.gift.status).toBe('CANCELLED');
    const view = await gql(b, DASHBOARD, { ref: order.id });
    expect(view.data.campaign.gifts.edges.map((e: any) => e.node.status)).toContain('CANCELLED');
    expect(await b.metric('reward_gateway_cache_invalidations_total', { cause: 'write' })).toBe(0);
    expect(await a.metric('reward_gateway_cache_invalidations_total', { cause: 'write' })).toBeGreaterThan(0);
  });

  it('a redemption on an order watched on one replica shows in reads on the other once the poller saw it', async ({ sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const [a, b] = replicas as [Replica, Replica];
    const listed = await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}&limit=100`);
    const uuid = listed.body.gifts[0].uuid as string;
    const polls = () => a.metric('reward_gateway_live_polls_total', { feed: 'campaign' });
    const pollsBefore = await polls();
    const stream = subscribeSse(a.url, `subscription ($c: ID) { giftStatusChanged(campaign: $c) { gift { uuid status } } }`, { c: order.id });
    try {
      expect((await gql(b, GIFT, { uuid })).data.gift.status).toBe('SENT_AND_REDEEMABLE');
      // The poller's baseline, then the redemption.
      await eventually(async () => (await polls()) > pollsBefore, PROBE_MS);
      await sandbox.control.redeem(uuid);
      expect((await stream.next()).data.giftStatusChanged.gift).toEqual({ uuid, status: 'REDEEMED' });
      expect((await gql(b, GIFT, { uuid })).data.gift.status).toBe('REDEEMED');
      expect(
        (await a.metric('reward_gateway_cache_invalidations_total', { cause: 'poller' })) +
          (await b.metric('reward_gateway_cache_invalidations_total', { cause: 'poller' })),
      ).toBeGreaterThan(0);
    } finally {
      stream.close();
    }
  });

  it('while every upstream call fails, a fresh read answers what Redis holds, marked stale, and fast', async ({ sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const other = await createEmailOrder(sandbox, { recipients: 1 });
    const [a, b] = replicas as [Replica, Replica];
    const warm = await gql(a, DASHBOARD, { ref: order.id });
    await sandbox.control.fault({ status: 503, rate: 1 });
    try {
      const started = Date.now();
      const stale = await gql(b, DASHBOARD, { ref: order.id }, { 'cache-control': 'no-cache' });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(stale.errors).toBeUndefined();
      expect(stale.extensions.stale).toBe(true);
      expect(stale.data).toEqual(warm.data);
      expect((await gql(b, DASHBOARD, { ref: other.id })).errors?.length).toBeGreaterThan(0);
      expect(await b.metric('reward_gateway_cache_reads_total', { outcome: 'stale' })).toBeGreaterThan(0);
    } finally {
      await sandbox.control.clearFaults();
    }
  });

  it('keys and entries in Redis carry no upstream token and no upstream URL', async ({ sandbox, redis }) => {
    const admin = new Redis(redis.url);
    try {
      const keys = await admin.keys(`${prefix}{cache:*`);
      expect(keys.length).toBeGreaterThan(0);
      const { token, baseUrl } = sandbox.sandbox;
      for (const key of keys) {
        expect(key).not.toContain(token);
        expect(key).not.toContain(new URL(baseUrl).host);
        const type = await admin.type(key);
        const values = type === 'hash' ? Object.values(await admin.hgetall(key)) : type === 'string' ? [(await admin.get(key))!] : [];
        for (const value of values) expect(value).not.toContain(token);
      }
    } finally {
      admin.disconnect();
    }
  });
});
