import { afterAll, describe, expect } from 'vitest';
import {
  eventually,
  PROBE_MS,
  killReplicas,
  type Replica,
  replicaEnv,
  startRedis,
  startReplica,
  within,
  type TestRedis,
} from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { GIFT_CHANGES } from '../support/live.js';
import { test as it } from '../support/test.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver.js';

// Webhook delivery while the Redis holding the endpoints and their queues is hung (SIGSTOP: connections open,
// nothing answers) or down (SIGKILL, then started again with its append-only file, as docs/webhooks.md asks
// operators to run it). Changes made meanwhile wait: the replica finds them (polling alone) but cannot queue
// them, so nothing new reaches the receiver; when Redis answers again the queue drains in the order of the
// changes, none lost, and every request for one change carries that change's one webhook-id. A delivery the
// receiver accepted just as Redis stopped answering may be sent again, with its id: its acceptance could not be
// recorded (docs/webhooks.md, "Once per event").

const COMMAND_TIMEOUT_MS = 500;

let redis: TestRedis;
let replica: Replica;
const receivers: WebhookReceiver[] = [];

const idOf = (request: ReceivedRequest) => request.headers['webhook-id'] as string;
const giftOf = (request: ReceivedRequest) =>
  (JSON.parse(request.body) as { data: { giftStatusChanged: { gift: { uuid: string } } } }).data.giftStatusChanged.gift.uuid;

async function register(receiver: WebhookReceiver, campaign: string): Promise<string> {
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: /* GraphQL */ `
        mutation ($input: CreateWebhookEndpointInput!) {
          createWebhookEndpoint(input: $input) {
            ... on CreateWebhookEndpointPayload {
              endpoint {
                id
              }
            }
            ... on ValidationError {
              message
            }
          }
        }
      `,
      variables: { input: { url: `${receiver.url}/hook`, subscription: GIFT_CHANGES, variables: { campaign } } },
    }),
  });
  const body = (await res.json()) as any;
  const id = body.data?.createWebhookEndpoint?.endpoint?.id as string | undefined;
  if (!id) throw new Error(`registration refused: ${JSON.stringify(body)}`);
  return id;
}

/** Resolves once the replica has made `count` more campaign polls (alone while Redis is away). */
async function polls(count: number): Promise<void> {
  const target = (await replica.metric('reward_gateway_live_polls_total', { feed: 'campaign' })) + count;
  await eventually(async () => (await replica.metric('reward_gateway_live_polls_total', { feed: 'campaign' })) >= target, PROBE_MS);
}

/** An order of `recipients` rewards with an endpoint of its own, its subscription accepted, its receiver. */
async function watchedOrder(
  sandbox: { api: (m: string, p: string) => Promise<{ body: any }> } & Parameters<typeof createEmailOrder>[0],
  recipients: number,
) {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  const order = await createEmailOrder(sandbox, { recipients });
  const gifts = ((await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
  const subscribers = await replica.metric('reward_gateway_live_subscribers');
  const endpoint = await register(receiver, order.id);
  await within(
    20_000,
    'the endpoint’s subscription',
    eventually(async () => (await replica.metric('reward_gateway_live_subscribers')) > subscribers, PROBE_MS),
  );
  return { receiver, gifts, endpoint };
}

/**
 * Every change accepted, first acceptances in the order of the changes; every request for one change carried the
 * same webhook-id, one id per change (a repeat is the same id: a receiver deduplicates on it).
 */
function expectEachChangeOnce(receiver: WebhookReceiver, gifts: string[]): void {
  const firstAccepted = new Map<string, string>();
  for (const request of receiver.accepted()) if (!firstAccepted.has(idOf(request))) firstAccepted.set(idOf(request), giftOf(request));
  expect([...firstAccepted.values()]).toEqual(gifts);
  const idsByGift = new Map<string, Set<string>>();
  for (const request of receiver.received) idsByGift.set(giftOf(request), (idsByGift.get(giftOf(request)) ?? new Set()).add(idOf(request)));
  expect([...idsByGift.values()].map((ids) => ids.size)).toEqual(gifts.map(() => 1));
  expect(new Set(receiver.received.map(idOf)).size).toBe(gifts.length);
}

/** The endpoint's queue, as any replica reports it. */
async function pending(endpoint: string): Promise<number> {
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ webhookEndpoints { id pendingDeliveries } }' }),
  });
  return ((await res.json()) as any).data.webhookEndpoints.find((e: { id: string }) => e.id === endpoint).pendingDeliveries as number;
}

/** Accepted changes, a repeat of one (same webhook-id) counted once. */
const acceptedGifts = (receiver: WebhookReceiver) => [...new Map(receiver.accepted().map((r) => [idOf(r), giftOf(r)])).values()];

/** Resolves once the endpoint's subscription has let go: a change came that could not be queued. */
const droppedStream = (before: number) =>
  within(
    20_000,
    'a change the replica found but could not queue',
    eventually(async () => (await replica.metric('reward_gateway_live_subscribers')) < before, PROBE_MS),
  );

const redisUp = () => replica.metric('reward_gateway_redis_up');

it.beforeAll(async ({ sandbox }) => {
  redis = await startRedis({ persistent: true });
  replica = await startReplica({
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: '100',
    POLL_INTERVAL_FLOOR_MS: '10',
    LIVE_LEASE_MS: '1000',
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_BASE_MS: '20',
  });
}, 60_000);

afterAll(async () => {
  await killReplicas();
  await Promise.all(receivers.map((r) => r.close()));
  await redis?.stop();
});

/**
 * Four of one order's five rewards change around an outage: the first delivered before, two made while Redis is `away`, then Redis
 * `back` and a last change.
 */
async function throughOutage(sandbox: Parameters<typeof watchedOrder>[0], away: () => Promise<void>, back: () => Promise<void>): Promise<void> {
  const { receiver, gifts, endpoint } = await watchedOrder(sandbox, 5);
  await sandbox.control.redeem(gifts[0]!);
  await within(
    20_000,
    'the first delivery',
    receiver.until(() => receiver.accepted().length === 1),
  );
  const subscribed = await replica.metric('reward_gateway_live_subscribers');

  await away();
  try {
    await within(
      20_000,
      'the replica to count Redis as down',
      eventually(async () => (await redisUp()) === 0, PROBE_MS),
    );
    await sandbox.control.redeem(gifts[1]!);
    await sandbox.control.redeem(gifts[2]!);
    // The replica polls alone meanwhile and finds a change, which it cannot queue: nothing new is sent.
    await droppedStream(subscribed);
    expect(acceptedGifts(receiver)).toEqual([gifts[0]]);
  } finally {
    await back();
  }
  await within(
    20_000,
    'the queue to drain',
    receiver.until(() => acceptedGifts(receiver).length >= 3),
  );
  await sandbox.control.redeem(gifts[3]!);
  await within(
    20_000,
    'the last delivery',
    receiver.until(() => acceptedGifts(receiver).includes(gifts[3]!)),
  );
  // A few more polls (a fifth reward stays open, so the order is still watched): a late copy would show here.
  await within(20_000, 'five more polls', polls(5));
  expect(await pending(endpoint)).toBe(0);
  expectEachChangeOnce(receiver, gifts.slice(0, 4));
}

describe('webhook delivery while Redis is away', { timeout: 60_000 }, () => {
  it('Redis hung (SIGSTOP): deliveries wait, then drain in order, none lost, one webhook-id per change', ({ sandbox }) =>
    throughOutage(
      sandbox,
      () => redis.signal('SIGSTOP'),
      () => redis.signal('SIGCONT'),
    ));

  it('Redis down (SIGKILL), started again with its data: deliveries wait, then drain in order, none lost, one webhook-id per change', ({ sandbox }) =>
    throughOutage(
      sandbox,
      () => redis.signal('SIGKILL'),
      () => redis.start(),
    ));
});

/** A GraphQL request to the replica: its status and body. */
async function graphql(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: await res.json() };
}

describe('the webhook API while Redis is hung', { timeout: 60_000 }, () => {
  it('a read, and a change that failed before writing, are STORE_UNAVAILABLE to retry, and work again once Redis answers', async () => {
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const create = (description: string) =>
      graphql(
        /* GraphQL */ `
          mutation ($input: CreateWebhookEndpointInput!) {
            createWebhookEndpoint(input: $input) {
              ... on CreateWebhookEndpointPayload {
                endpoint {
                  id
                  description
                }
              }
            }
          }
        `,
        { input: { url: `${receiver.url}/hook`, subscription: 'subscription { fundsChanged { cursor } }', description } },
      );
    await redis.signal('SIGSTOP');
    let read: Awaited<ReturnType<typeof graphql>>;
    let change: Awaited<ReturnType<typeof graphql>>;
    try {
      read = await graphql('{ webhookEndpoints { id } }');
      change = await create('made while Redis was hung');
    } finally {
      await redis.signal('SIGCONT');
    }
    /** Answered 200, with the one field failed as STORE_UNAVAILABLE to retry (`retryable` not false). */
    const toRetry = ({ status, body }: Awaited<ReturnType<typeof graphql>>, field: string) => {
      expect(status).toBe(200);
      expect(body.errors).toEqual([
        expect.objectContaining({
          message: "The gateway's shared store (Redis) does not answer now; retry shortly.",
          path: [field],
          extensions: expect.objectContaining({ code: 'STORE_UNAVAILABLE' }),
        }),
      ]);
      expect(body.errors[0].extensions.retryable).not.toBe(false);
    };
    toRetry(read, 'webhookEndpoints');
    // The create failed at its first read (the owner's endpoints, for the cap): nothing was written, so it is to
    // retry. A write that got no answer is to read back instead (test/webhooks/unconfirmed-writes.test.ts).
    toRetry(change, 'createWebhookEndpoint');
    // Nothing of the driver's own words (a key, a command) reached the client.
    expect(JSON.stringify([read.body, change.body])).not.toMatch(/timed out|ioredis|webhook:|Command/);
    await within(
      20_000,
      'Redis to answer again',
      eventually(async () => (await redisUp()) === 1, PROBE_MS),
    );
    const after = await create('made after');
    expect(after.body.errors).toBeUndefined();
    const listed = await graphql('{ webhookEndpoints { id description } }');
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data.webhookEndpoints).toContainEqual(after.body.data.createWebhookEndpoint.endpoint);
    // As told: the create refused during the hang wrote nothing.
    expect(listed.body.data.webhookEndpoints.map((e: { description: string | null }) => e.description)).not.toContain('made while Redis was hung');
  });
});
