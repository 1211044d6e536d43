import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killReplicas, type Replica, replicaEnv, startRedis, startReplica, type TestRedis } from '../support/cluster.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// Two gateway processes on one redis-server share one upstream budget: together they never send the reward
// API more than the budget allows over the time they run (each alone would allow as much again), and what
// neither can fit in is refused UPSTREAM_BUSY with nothing sent.

const PER_SECOND = 5;
const BURST = 5;

let sandbox: TestSandbox;
let redis: TestRedis;
let replicas: Replica[];
let admin: Redis;

/** Redis's clock, in seconds: the one the shared bucket grants tokens by. */
async function redisSeconds(): Promise<number> {
  const [seconds, micros] = await admin.time();
  return Number(seconds) + Number(micros) / 1e6;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  redis = await startRedis();
  // One prefix for both: they share the budget's key.
  const env = {
    ...replicaEnv(sandbox, redis),
    UPSTREAM_RATE_LIMIT_PER_SECOND: String(PER_SECOND),
    UPSTREAM_RATE_LIMIT_BURST: String(BURST),
    UPSTREAM_QUEUE_TIMEOUT_MS: '1500',
  };
  replicas = await Promise.all([startReplica(env), startReplica(env)]);
  admin = new Redis(redis.url);
}, 120_000);

afterAll(async () => {
  admin?.disconnect();
  await killReplicas();
  await redis?.stop();
  await sandbox?.close();
});

async function read(replica: Replica, ref: string): Promise<{ data?: unknown; errors?: { extensions?: { code?: string } }[] }> {
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ campaign(ref: ${JSON.stringify(ref)}) { uuid } }` }),
  });
  return res.json() as Promise<{ data?: unknown; errors?: { extensions?: { code?: string } }[] }>;
}

it('two replicas together stay within one budget for as long as they ran; the rest is UPSTREAM_BUSY', { timeout: 60_000 }, async () => {
  await sandbox.control.reset();
  const startedAt = await redisSeconds();
  const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => read(replicas[i % 2]!, `shared-${i}`)));
  const endedAt = await redisSeconds();
  let busy = 0;
  for (const answer of answers) {
    if (answer.errors) {
      expect(answer.errors.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_BUSY']);
      busy++;
    } else expect(answer.data).toEqual({ campaign: null });
  }
  expect(busy).toBeGreaterThan(0);
  const { requests } = await sandbox.control.stats();
  const sent = requests['GET /campaign/:id']!;
  expect(sent).toBe(answers.length - busy);
  // One bucket grants at most its burst plus its rate for every second between the first read and the last
  // answer, by Redis's clock, which is the one it grants by. Counted over that span rather than per second of
  // arrival: a loaded machine delivers granted requests late and unevenly, so a second of arrivals can hold
  // grants of the next one. Two buckets (a budget per replica) would grant twice as much.
  const oneBucket = BURST + PER_SECOND * (endedAt - startedAt);
  expect(sent).toBeLessThanOrEqual(Math.floor(oneBucket));
  // The reads queued for the bucket were served as it refilled, not refused at once: more than the burst went.
  expect(sent).toBeGreaterThan(BURST);
  for (const replica of replicas) expect(await replica.metric('reward_gateway_upstream_budget_limit', { limit: 'per_second' })).toBe(PER_SECOND);
});
