import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/cluster.js';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { startKeyIssuer, type KeyIssuer } from '../identity/issuers.js';

// WEBHOOK_MAX_ENDPOINTS_PER_KEY holds for every owner (a key, or a token's subject at its issuer) and under
// concurrency: the count and the insert are one step (a synchronous check-and-insert in memory, one script in
// Redis), so 20 registrations at once leave exactly the cap, in each store.

const AUDIENCE = 'https://rewards.gateway.test';
const CAP = 3;
const KEY = { name: 'hooks', key: 'Zq81rT0pLx7vB2nM9wQ4kS6d', scopes: ['funds:read', 'webhooks:read', 'webhooks:write'] };
const CREATE = `mutation ($url: String!) {
  createWebhookEndpoint(input: { url: $url, subscription: "subscription { fundsChanged { cursor } }" }) {
    __typename
    ... on ValidationError { issues { path message } }
  }
}`;

let sandbox: TestSandbox;
let issuer: KeyIssuer;
let redis: TestRedis;
const receiver = createServer((_req, res) => res.end());
let url: string;

beforeAll(async () => {
  [sandbox, issuer, redis] = await Promise.all([startTestSandbox(), startKeyIssuer(AUDIENCE), startRedis()]);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), issuer?.close(), redis?.stop()]);
  await new Promise((resolve) => receiver.close(resolve));
});

describe.each([
  ['in memory', () => ({})],
  ['in Redis', () => ({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `cap-${Math.random().toString(36).slice(2)}:` })],
])('the endpoint cap, %s', (_store, storeEnv) => {
  let gateway: InProcessGateway;

  beforeAll(async () => {
    gateway = createTestGateway(sandbox, {
      env: {
        GATEWAY_API_KEYS: JSON.stringify([KEY]),
        AUTH_JWT_ISSUER: issuer.issuer,
        AUTH_JWT_AUDIENCE: AUDIENCE,
        WEBHOOK_MAX_ENDPOINTS_PER_KEY: String(CAP),
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        ...storeEnv(),
      },
    });
    // Listening waits for Redis to be connected; requests still go in process.
    await gateway.listen();
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const create = async (headers: Record<string, string>) => {
    const res = await gateway.gql(CREATE, { url }, headers);
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    return res.body.data.createWebhookEndpoint as { __typename: string; issues?: { message: string }[] };
  };
  const listed = async (headers: Record<string, string>) =>
    ((await gateway.gql('{ webhookEndpoints { id } }', undefined, headers)).body.data.webhookEndpoints as unknown[]).length;

  it('20 registrations of one key at once leave exactly the cap', async () => {
    const asKey = { authorization: `Bearer ${KEY.key}` };
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(asKey)));
    expect(answers.filter((a) => a.__typename === 'CreateWebhookEndpointPayload')).toHaveLength(CAP);
    const refused = answers.filter((a) => a.__typename === 'ValidationError');
    expect(refused).toHaveLength(20 - CAP);
    for (const answer of refused) expect(answer.issues?.[0]?.message).toMatch(/^endpoint-cap: this caller already has 3 webhook endpoints/);
    expect(await listed(asKey)).toBe(CAP);
  });

  it("holds a token's subject to the cap, as a key, also at once", async () => {
    const asToken = { authorization: `Bearer ${await issuer.sign({ sub: 'hooks-user', scope: KEY.scopes.join(' ') })}` };
    const serially = [];
    for (let i = 0; i < 2; i++) serially.push((await create(asToken)).__typename);
    const together = await Promise.all(Array.from({ length: 4 }, () => create(asToken)));
    const created = [...serially, ...together.map((a) => a.__typename)].filter((t) => t === 'CreateWebhookEndpointPayload');
    expect(created).toHaveLength(CAP);
    expect(await listed(asToken)).toBe(CAP);
    // Another subject has a cap of its own.
    const other = { authorization: `Bearer ${await issuer.sign({ sub: 'other-user', scope: KEY.scopes.join(' ') })}` };
    expect((await create(other)).__typename).toBe('CreateWebhookEndpointPayload');
  });
});

it('Redis holds no more endpoints than the caps allow', async () => {
  // What the Redis suite above left: the key's 3, hooks-user's 3 and other-user's 1, in the shared sets.
  const client = new Redis(redis.url);
  try {
    const owners = (await client.keys('cap-*{webhooks}:owner:*')).sort();
    expect(owners).toHaveLength(3);
    const counts = await Promise.all(owners.map((owner) => client.scard(owner)));
    expect(counts.sort()).toEqual([1, 3, 3]);
    const [all] = await client.keys('cap-*{webhooks}:all');
    expect(await client.scard(all!)).toBe(7);
  } finally {
    client.disconnect();
  }
});
