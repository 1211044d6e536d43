import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killReplicas, startRedis, startReplica, type Replica, type TestRedis } from '../support/cluster.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// In cluster mode a key's token bucket is in Redis: its burst spread over three replicas admits one burst,
// not three. With Redis gone each replica falls back to a bucket of its own (limited, never open).

const BURST = 6;

let sandbox: TestSandbox;
let redis: TestRedis;
let replicas: Replica[];

beforeAll(async () => {
  sandbox = await startTestSandbox();
  redis = await startRedis();
  const env = {
    ...KEYS_ENV,
    REWARD_API_URL: sandbox.sandbox.baseUrl,
    REWARD_API_TOKEN: sandbox.sandbox.token,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `test-${randomUUID().slice(0, 8)}:`,
    RATE_LIMIT_BURST: String(BURST),
    // A refill so slow that no bucket refills during the test.
    RATE_LIMIT_PER_SECOND: '0.001',
  };
  replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
}, 120_000);

afterAll(async () => {
  await killReplicas();
  await redis?.stop();
  await sandbox?.close();
});

const ask = (replica: Replica, key: { key: string }) =>
  fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify({ query: '{ __typename }' }),
  }).then((res) => res.status);

describe('rate limit shared across replicas', { timeout: 60_000 }, () => {
  it('a burst spread over three replicas admits one burst, not three', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < BURST * 3; i++) statuses.push(await ask(replicas[i % 3]!, KEYS.reader));
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    expect(statuses.slice(BURST).every((s) => s === 429)).toBe(true);
    // Another key has its own bucket.
    expect(await ask(replicas[1]!, KEYS.writer)).toBe(200);
  });

  it('with Redis down, each replica limits on its own bucket (never open)', async () => {
    await redis.stop();
    for (const replica of replicas) {
      for (;;) if ((await replica.metric('reward_gateway_redis_up')) === 0) break;
    }
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 2; i++) statuses.push(await ask(replicas[0]!, KEYS.treasurer));
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
  });
});
