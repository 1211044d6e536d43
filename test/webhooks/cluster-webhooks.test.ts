import type { Client } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect } from 'vitest';
import { eventually, PROBE_MS, within, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { GIFT_CHANGES, RESUMABLE_GIFT_CHANGES, subscribeWs, wsClient } from '../support/live.js';
import { test as it } from '../support/test.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver.js';

// Webhooks in cluster mode across real processes: three gateway replicas on one redis-server of the suite's own,
// one sandbox, a receiver on loopback. An endpoint is sent by the one replica holding its lease, from the queue
// kept in Redis: each event is accepted once, in the order a WebSocket subscriber on another replica sees, and a
// replica killed while it retries hands the queue to another without losing or repeating an event.

let replicas: Replica[];
const clients: Client[] = [];
const receivers: WebhookReceiver[] = [];

const sum = async (list: Replica[], name: string, labels?: Record<string, string>) =>
  (await Promise.all(list.map((r) => r.metric(name, labels)))).reduce((a, b) => a + b, 0);
/** Resolves once the replicas have made `count` more campaign polls between them. */
async function polls(list: Replica[], count: number): Promise<void> {
  const target = (await sum(list, 'reward_gateway_live_polls_total', { feed: 'campaign' })) + count;
  await eventually(async () => (await sum(list, 'reward_gateway_live_polls_total', { feed: 'campaign' })) >= target, PROBE_MS);
}

/** Each endpoint's signing secret, by id: every accepted request is verified with it. */
const secrets = new Map<string, string>();

async function register(replica: Replica, receiver: WebhookReceiver, campaign: string): Promise<string> {
  const res = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: /* GraphQL */ `
        mutation ($input: CreateWebhookEndpointInput!) {
          createWebhookEndpoint(input: $input) {
            ... on CreateWebhookEndpointPayload {
              secret
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
  secrets.set(id, body.data.createWebhookEndpoint.secret as string);
  return id;
}

/** Throws unless the request is signed with the endpoint's secret. */
const verify = (endpoint: string, request: ReceivedRequest) =>
  new Webhook(secrets.get(endpoint)!).verify(request.body, request.headers as Record<string, string>);

/** Resolves once the endpoint's subscription has completed and nothing waits in its queue. */
function settled(replica: Replica, endpoint: string): Promise<unknown> {
  return eventually(async () => {
    const res = await fetch(`${replica.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ webhookEndpoints { id completed pendingDeliveries } }' }),
    });
    const found = ((await res.json()) as any).data.webhookEndpoints.find((e: { id: string }) => e.id === endpoint);
    return found?.completed && found.pendingDeliveries === 0;
  }, PROBE_MS);
}

const idOf = (request: ReceivedRequest) => request.headers['webhook-id'] as string;
const eventOf = (request: ReceivedRequest) => JSON.parse(request.body) as { cursor: string; data: { giftStatusChanged: { gift: { uuid: string } } } };

async function newReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return receiver;
}

async function giftsOf(sandbox: { api: (m: string, p: string) => Promise<{ body: any }> }, uuid: string): Promise<string[]> {
  return ((await sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
}

it.beforeAll(async ({ sandbox, redis }) => {
  const env = {
    ...replicaEnv(sandbox, redis),
    POLL_INTERVAL_MS: '100',
    POLL_INTERVAL_FLOOR_MS: '10',
    // Ten intervals: three processes share two busy cores; a lease lapsing under a stalled event loop would hand
    // an endpoint over (correctly) without anyone dying.
    LIVE_LEASE_MS: '1000',
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_BASE_MS: '20',
  };
  replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await killReplicas();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('webhooks in cluster mode (3 processes, 1 Redis)', { timeout: 90_000 }, () => {
  it('each event is accepted once across the replicas, in the order a WebSocket subscriber sees; a replay asked of another replica resends', async ({
    sandbox,
  }) => {
    const receiver = await newReceiver();
    const order = await createEmailOrder(sandbox, { recipients: 3 });
    const gifts = await giftsOf(sandbox, order.uuid);
    const endpoint = await register(replicas[0]!, receiver, order.id);
    const socket = wsClient(replicas[1]!.url);
    clients.push(socket);
    const stream = subscribeWs(socket, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
    await within(
      20_000,
      'the subscriptions',
      eventually(async () => (await sum(replicas, 'reward_gateway_live_subscribers')) >= 2, PROBE_MS),
    );
    await within(20_000, 'two polls', polls(replicas, 2));

    for (const gift of gifts) await sandbox.control.redeem(gift);
    await within(
      20_000,
      'three deliveries',
      receiver.until(() => receiver.accepted().length >= 3),
    );
    await within(20_000, 'three events on the WebSocket', stream.take(3));
    // Every reward is final: the subscriptions complete, and the endpoint's queue is empty.
    await within(20_000, 'the WebSocket subscription to complete', stream.ended);
    await within(20_000, 'the endpoint to complete', settled(replicas[2]!, endpoint));

    const seen = stream.received.map((r) => r.data.giftStatusChanged as { cursor: string; gift: { uuid: string } });
    const accepted = receiver.accepted();
    expect(accepted.map((r) => eventOf(r).cursor)).toEqual(seen.map((e) => e.cursor));
    expect(accepted.map((r) => eventOf(r).data.giftStatusChanged.gift.uuid)).toEqual(seen.map((e) => e.gift.uuid));
    expect(new Set(receiver.received.map(idOf)).size).toBe(3);
    expect(receiver.received).toHaveLength(3);
    expect(await sum(replicas, 'reward_gateway_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(3);

    // A replay asked of a replica that does not send the endpoint: the sender starts again from the cursor.
    const replayed = await fetch(`${replicas[2]!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($e: ID!, $after: String!) { replayWebhookEvents(endpoint: $e, after: $after) { __typename } }',
        variables: { e: endpoint, after: seen[0]!.cursor },
      }),
    });
    expect(((await replayed.json()) as any).data.replayWebhookEvents.__typename).toBe('WebhookEndpointPayload');
    await within(
      20_000,
      'the replayed events',
      receiver.until(() => receiver.accepted().length >= 5),
    );
    await within(20_000, 'the endpoint to complete again', settled(replicas[2]!, endpoint));
    const again = receiver.accepted().slice(3);
    expect(again.map((r) => eventOf(r).cursor)).toEqual(seen.slice(1).map((e) => e.cursor));
    expect(again.map(idOf)).toEqual(accepted.slice(1).map(idOf));
    expect(receiver.received).toHaveLength(5);
    for (const request of receiver.received) verify(endpoint, request);
  });

  it('a replica killed while it retries loses no delivery: another continues the queue with the same webhook-ids', async ({ sandbox }) => {
    const receiver = await newReceiver();
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const gifts = await giftsOf(sandbox, order.uuid);
    // The replica that registers the endpoint holds its lease and sends it.
    const [sender, ...others] = replicas as [Replica, ...Replica[]];
    const endpoint = await register(sender, receiver, order.id);
    await within(20_000, 'two polls', polls(replicas, 2));

    receiver.answerAlways(500);
    await sandbox.control.redeem(gifts[0]!);
    await within(
      20_000,
      'two attempts',
      receiver.until(() => receiver.received.length >= 2),
    );
    const retried = idOf(receiver.received[0]!);
    await sender.kill('SIGKILL');
    receiver.answerAlways(null);
    await sandbox.control.redeem(gifts[1]!);

    await within(
      30_000,
      'both deliveries, from another replica',
      receiver.until(() => receiver.accepted().length >= 2),
    );
    await within(20_000, 'the endpoint to complete', settled(others[0]!, endpoint));
    const accepted = receiver.accepted();
    expect(accepted.map((r) => eventOf(r).data.giftStatusChanged.gift.uuid)).toEqual(gifts);
    expect(idOf(accepted[0]!)).toBe(retried);
    expect(new Set(accepted.map(idOf)).size).toBe(accepted.length);
    expect(accepted).toHaveLength(2);
    // Signed alike by the replica that died and the one that took over: the secret is the endpoint's, in Redis.
    for (const request of receiver.received) verify(endpoint, request);
    // Every attempt of the first event carried its one id.
    expect(new Set(receiver.received.filter((r) => eventOf(r).data.giftStatusChanged.gift.uuid === gifts[0]).map(idOf))).toEqual(new Set([retried]));
  });
});
