import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { test } from '../support/test.js';

// In cluster mode a key's limit is kept in Redis: its burst spread over the replicas admits one burst, not one
// per replica. While Redis hangs (SIGSTOP: connections open, nothing answers) or is gone, no operation waits
// longer than REDIS_COMMAND_TIMEOUT_MS for it, and each replica admits its share of the limit (the limit
// divided by the replicas it last knew of): limited, never open, never closed.

const BURST = 6;
const REPLICAS = 2;
const COMMAND_TIMEOUT_MS = 300;
/** Far above the command timeout, far below the lease a hung command used to wait for. */
const ANSWER_WITHIN_MS = 3_000;

/** One key per test, so no test spends another's limit. */
const key = (name: string, scopes: string[] = ['rewards:read']) => ({ name, key: `${name}-${'k'.repeat(24)}`, scopes });
const KEYS = {
  spread: key('spread'),
  hung: key('hung'),
  writer: key('writer', ['rewards:read', 'rewards:write']),
  share: key('share'),
  resumed: key('resumed'),
  down: key('down'),
};

// Lifetime: the file. REPLICAS gateway processes over the file's sandbox and Redis, killed after the last
// test; `admin`, a Redis connection of the file's own, connects only when a test asks (it reconnects in vain
// once the last test stops Redis).
const it = test
  .extend('replicas', { scope: 'file' }, async ({ sandbox, redis }, { onCleanup }): Promise<Replica[]> => {
    onCleanup(() => killReplicas());
    const env = {
      GATEWAY_API_KEYS: JSON.stringify(Object.values(KEYS)),
      ...replicaEnv(sandbox, redis),
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      // The default lease (3 × the 5 s poll interval): what a hung command used to wait for.
      LIVE_LEASE_MS: '15000',
      RATE_LIMIT_BURST: String(BURST),
      // A refill so slow that no limit refills during the test.
      RATE_LIMIT_PER_SECOND: '0.001',
    };
    return Promise.all(Array.from({ length: REPLICAS }, () => startReplica(env)));
  })
  .extend('admin', { scope: 'file' }, ({ redis }, { onCleanup }) => {
    const admin = new Redis(redis.url, { lazyConnect: true });
    admin.on('error', () => undefined);
    onCleanup(() => admin.disconnect());
    return admin;
  });

interface Answer {
  status: number;
  ms: number;
  body: any;
}

async function send(replica: Replica, caller: { key: string }, query: string, variables?: object): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${caller.key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  return { status: res.status, ms: performance.now() - started, body };
}

const ask = (replica: Replica, caller: { key: string }) => send(replica, caller, '{ regions { id } }');

/** The replica count a replica last logged. */
const knownReplicas = (replica: Replica) => replica.lines().findLast((l) => l.msg === 'rate limit: replicas known')?.replicas;

// The first test also starts the replicas: two processes under a loaded machine.
describe('rate limit shared across replicas', { timeout: 120_000 }, () => {
  it('a burst spread over the replicas admits one burst, not one per replica', async ({ replicas }) => {
    const statuses: number[] = [];
    for (let i = 0; i < BURST * REPLICAS; i++) statuses.push((await ask(replicas[i % REPLICAS]!, KEYS.spread)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    expect(statuses.slice(BURST).every((s) => s === 429)).toBe(true);
    // Another key has its own limit.
    expect((await ask(replicas[1]!, KEYS.share)).status).toBe(200);
  });

  describe('while Redis hangs with its connections open', () => {
    it('queries and a create answer within the command timeout, not the lease', async ({ replicas, redis }) => {
      await eventually(() => replicas.every((r) => knownReplicas(r) === REPLICAS));
      await redis.signal('SIGSTOP');
      const answers = [await ask(replicas[0]!, KEYS.hung), await ask(replicas[1]!, KEYS.hung)];
      const create = await send(
        replicas[0]!,
        KEYS.writer,
        'mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename } }',
        {
          input: {
            id: `hung-redis-${randomUUID()}`,
            priceInCents: 1000,
            reward: { brand: 'sbxcoffeeus' },
            contacts: [{ email: 'ada@example.com' }],
            subject: 'Hi',
            message: 'Thanks.',
          },
        },
      );
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body.data.regions.length).toBeGreaterThan(0);
        expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
      }
      expect(create.body.data?.createCampaign.__typename, JSON.stringify(create.body)).toBe('CreateCampaignPayload');
      expect(create.ms).toBeLessThan(ANSWER_WITHIN_MS);
    });

    it('each replica admits its share: the burst divided by the replicas it last knew of', async ({ replicas }) => {
      const answers: Answer[] = [];
      for (let i = 0; i < BURST; i++) answers.push(await ask(replicas[0]!, KEYS.share));
      // KEYS.share spent one operation in Redis before the hang; the local share starts afresh.
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429, 429]);
      expect(answers.every((a) => a.ms < ANSWER_WITHIN_MS)).toBe(true);
      expect(answers[3]!.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    });

    it('once Redis answers again, the shared limit applies again', async ({ replicas, redis, admin }) => {
      // A hang longer than a replica's entry lasts (3 s): every entry has lapsed when Redis wakes up.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      await redis.signal('SIGCONT');
      await admin.connect();
      expect(await admin.ping()).toBe('PONG');
      const statuses: number[] = [];
      for (let i = 0; i < BURST + 2; i++) statuses.push((await ask(replicas[0]!, KEYS.resumed)).status);
      // The whole burst from one replica: Redis decides again, not this replica's share.
      expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    });
  });

  it('with Redis down, each replica admits its share (never open)', async ({ replicas, redis }) => {
    // The hang made every replica entry lapse; the first beats after it must not have lowered the count.
    expect(replicas.map(knownReplicas)).toEqual([REPLICAS, REPLICAS]);
    await redis.stop();
    for (const replica of replicas) await eventually(async () => (await replica.metric('reward_gateway_redis_up')) === 0, PROBE_MS);
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 2; i++) statuses.push((await ask(replicas[0]!, KEYS.down)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST / REPLICAS);
  });
});
