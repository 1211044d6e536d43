import { afterAll, beforeAll, expect, it } from 'vitest';
import { killReplicas, type Replica, replicaEnv, startRedis, startReplica, type TestRedis } from '../support/cluster.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// Two gateway processes on one redis-server share one upstream budget: together they never send the reward
// API more than the budget allows in any second (each alone would allow as much again), and what neither can
// fit in is refused UPSTREAM_BUSY with nothing sent.

const PER_SECOND = 5;
const BURST = 5;

let sandbox: TestSandbox;
let redis: TestRedis;
let replicas: Replica[];

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
}, 120_000);

afterAll(async () => {
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

it('two replicas together stay within one budget in every second; the rest is UPSTREAM_BUSY', { timeout: 60_000 }, async () => {
  await sandbox.control.reset();
  const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => read(replicas[i % 2]!, `shared-${i}`)));
  let busy = 0;
  for (const answer of answers) {
    if (answer.errors) {
      expect(answer.errors.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_BUSY']);
      busy++;
    } else expect(answer.data).toEqual({ campaign: null });
  }
  expect(busy).toBeGreaterThan(0);
  const { perSecond, requests } = await sandbox.control.stats();
  // One bucket: at most its burst plus a second of its rate in any second (two buckets would allow twice that).
  // The bucket counts when a token is granted, by Redis's clock; the sandbox counts arrivals, which a loaded
  // machine delays unevenly (a burst granted at once arriving late, the next grants on time), so one second of
  // arrivals can hold grants of the next: at the 5/s rate, a grant delivered up to 0.8 s late is 4 of them. Two
  // as much slack was exceeded once on a quiet machine (13 arrivals in a second); with this one the bound is 14,
  // still short of what a second bucket would let through (20 in a second).
  const DELIVERY_JITTER = 4;
  for (const [second, n] of Object.entries(perSecond)) expect(n, `second ${second}`).toBeLessThanOrEqual(BURST + PER_SECOND + DELIVERY_JITTER);
  expect(requests['GET /campaign/:id']).toBe(answers.length - busy);
  for (const replica of replicas) expect(await replica.metric('reward_gateway_upstream_budget_limit', { limit: 'per_second' })).toBe(PER_SECOND);
});
