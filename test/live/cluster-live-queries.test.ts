import { applyJSONPatch, applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { Client as UrqlClient, subscriptionExchange, type Operation } from '@urql/core';
import type { Client } from 'graphql-ws';
import { afterAll, describe, expect } from 'vitest';
import { eventually, PROBE_MS, killReplicas, type Replica, replicaEnv, startReplica } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { wsClient } from '../support/live.js';
import { test as it } from '../support/test.js';

// Live queries across real processes: three replicas on one redis-server and one sandbox, 50 viewers of one
// dashboard of ten orders spread over them, each an urql client over graphql-ws applying JSON patches with
// applyLiveQueryJSONPatch (as docs/clients.md shows). A redemption reaches every viewer as exactly one patch; a
// cancel made through one replica is resolved there before its mutation answers and reaches every viewer as one
// patch; a replica leading orders killed with SIGKILL loses no change for the viewers of the others.

const ORDERS = 10;
const VIEWERS = 50;
const DASHBOARD = /* GraphQL */ `
  query Dashboard($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      status
      gifts(first: 5) {
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
const CANCEL = /* GraphQL */ `
  mutation Cancel($ref: ID!) {
    cancelCampaign(ref: $ref) {
      __typename
    }
  }
`;

interface Order {
  id: string;
  uuid: string;
  gifts: string[];
}

interface Viewer {
  replica: Replica;
  /** Payloads as the gateway sent them (the first result, then patches). */
  sent: { revision?: number; patch?: unknown[]; data?: unknown }[];
  /** Results as urql handed them to the application: whole, patches applied. */
  results: { campaigns: { id: string; gifts: { edges: { node: { uuid: string; status: string } }[] } }[] }[];
}

const isLive = ({ kind, query }: Operation) =>
  kind === 'query' && query.definitions.some((d) => d.kind === 'OperationDefinition' && d.directives?.some((x) => x.name.value === 'live'));

/** One viewer: an urql client of its own (urql would share one operation between identical queries) over `ws`. */
function view(replica: Replica, ws: Client, refs: string[]): Viewer {
  const viewer: Viewer = { replica, sent: [], results: [] };
  async function* recorded(source: AsyncIterable<Viewer['sent'][number]>) {
    for await (const payload of source) {
      viewer.sent.push(payload);
      yield payload;
    }
  }
  const client = new UrqlClient({
    url: `${replica.url}/graphql`,
    exchanges: [
      subscriptionExchange({
        isSubscriptionOperation: isLive,
        forwardSubscription: (request) => ({
          subscribe(sink) {
            const source = ws.iterate<Record<string, unknown>, Record<string, unknown>>({
              query: request.query ?? '',
              variables: request.variables,
              extensions: { livePatch: 'json-patch' },
            });
            const results = applyLiveQueryJSONPatch(recorded(source) as AsyncIterable<never>);
            void (async () => {
              for await (const result of results) sink.next(result);
              sink.complete();
            })().catch((error: unknown) => sink.error(error));
            return { unsubscribe: () => void results.return?.() };
          },
        }),
      }),
    ],
  });
  client.query(DASHBOARD, { refs }).subscribe(({ data }) => {
    if (data) viewer.results.push(data);
  });
  return viewer;
}

const statusOf = (viewer: Viewer, gift: string) =>
  viewer.results
    .at(-1)
    ?.campaigns.flatMap((c) => c.gifts.edges)
    .find((e) => e.node.uuid === gift)?.node.status;

let replicas: Replica[];
/** The replicas left after the kill -9. */
let survivors: Replica[];
const sockets: Client[] = [];
let orders: Order[];
let viewers: Viewer[];

const sum = async (list: Replica[], name: string, labels?: Record<string, string>) =>
  (await Promise.all(list.map((r) => r.metric(name, labels)))).reduce((a, b) => a + b, 0);
/** Resolves once the replicas have made `count` more order polls between them. */
async function polls(list: Replica[], count: number): Promise<void> {
  const target = (await sum(list, 'reward_gateway_live_polls_total', { feed: 'campaign' })) + count;
  await eventually(async () => (await sum(list, 'reward_gateway_live_polls_total', { feed: 'campaign' })) >= target, PROBE_MS);
}

it.beforeAll(async ({ sandbox, redis }) => {
  const env = {
    ...replicaEnv(sandbox, redis),
    // The read cache, shared in Redis: live queries re-resolve on what it drops.
    CACHE_TTL_MS: '60000',
    POLL_INTERVAL_MS: '100',
    POLL_INTERVAL_FLOOR_MS: '10',
    // As in cluster.test.ts: three processes on two busy cores must not lose leases or Redis by stalling.
    LIVE_LEASE_MS: '2000',
    REDIS_COMMAND_TIMEOUT_MS: '2000',
  };
  replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
  orders = [];
  for (let i = 0; i < ORDERS; i++) {
    const order = await createEmailOrder(sandbox, { recipients: 2 });
    const gifts = (await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];
    orders.push({ ...order, gifts: gifts.map((g) => g.uuid) });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(sockets.map((c) => c.dispose()));
  await killReplicas();
});

describe('live queries in cluster mode (3 processes, 1 Redis)', { timeout: 90_000 }, () => {
  it(`${VIEWERS} viewers of one dashboard over 3 replicas: one poller per order, and a redemption reaches each as exactly one patch`, async ({
    sandbox,
  }) => {
    for (const replica of replicas) sockets.push(wsClient(replica.url));
    const refs = orders.map((o) => o.id);
    viewers = Array.from({ length: VIEWERS }, (_, i) => view(replicas[i % 3]!, sockets[i % 3]!, refs));
    await eventually(() => viewers.every((v) => v.results.length === 1));
    for (const v of viewers) expect(v.results[0]!.campaigns).toHaveLength(ORDERS);
    // Each replica resolves the dashboard once for all its viewers, and the cluster polls each order once.
    for (const replica of replicas) expect(await replica.metric('reward_gateway_live_queries_distinct')).toBe(1);
    await eventually(async () => (await sum(replicas, 'reward_gateway_live_leases')) === ORDERS, PROBE_MS);
    await polls(replicas, ORDERS * 2);

    const gift = orders[0]!.gifts[0]!;
    await sandbox.control.redeem(gift);
    await eventually(() => viewers.every((v) => statusOf(v, gift) === 'REDEEMED'));
    // Later polls (and each replica hearing of the others' cache drops) send nothing more.
    await polls(replicas, ORDERS * 3);
    for (const v of viewers) {
      expect(v.sent.map((p) => p.revision)).toEqual([1, 2]);
      expect(v.sent[1]!.patch).toEqual([expect.objectContaining({ op: 'replace', value: 'REDEEMED' })]);
    }
  });

  it('a cancel through one replica is resolved there before its mutation answers, and reaches every viewer as one patch', async () => {
    const [writer] = replicas.slice(1);
    const resolvedByWrites = () => writer!.metric('reward_gateway_live_query_resolutions_total', { cause: 'write', changed: 'true' });
    const before = await resolvedByWrites();
    const order = orders[1]!;
    const res = await fetch(`${writer!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: CANCEL, variables: { ref: order.id } }),
    });
    expect(((await res.json()) as { data: unknown }).data).toEqual({ cancelCampaign: { __typename: 'CancelCampaignPayload' } });
    // The writer's re-resolution that changed the dashboard ran before the answer.
    expect(await resolvedByWrites()).toBeGreaterThan(before);
    await eventually(() => viewers.every((v) => order.gifts.every((g) => statusOf(v, g) === 'CANCELLED')));
    await polls(replicas, ORDERS * 3);
    for (const v of viewers) expect(v.sent.map((p) => p.revision)).toEqual([1, 2, 3]);
  });

  it('kill -9 of the replica leading the most orders loses no change for the viewers of the others', async ({ sandbox }) => {
    const leases = await Promise.all(replicas.map((r) => r.metric('reward_gateway_live_leases')));
    const victim = replicas[leases.indexOf(Math.max(...leases))]!;
    survivors = replicas.filter((r) => r !== victim);
    await victim.kill('SIGKILL');
    // Redeemed at once: before the survivors take the victim's orders over (a lease later).
    const changed = orders.slice(2).map((o) => o.gifts[0]!);
    for (const gift of changed) await sandbox.control.redeem(gift);
    const watching = viewers.filter((v) => v.replica !== victim);
    await eventually(() => watching.every((v) => changed.every((g) => statusOf(v, g) === 'REDEEMED')));
    // Every order but the cancelled one, whose rewards are all final, is led by a survivor.
    await eventually(async () => (await sum(survivors, 'reward_gateway_live_leases')) === ORDERS - 1, PROBE_MS);
    for (const v of watching) {
      const last = v.sent.at(-1)!.revision!;
      expect(v.sent.map((p) => p.revision)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    }
  });

  it('a client reconnecting to another replica with its revision and hash gets a patch from the result it held', async ({ sandbox }) => {
    const [left, joined] = survivors as [Replica, Replica];
    const refs = orders.map((o) => o.id);
    const open = (replica: Replica, extensions: Record<string, unknown>) => {
      const ws = wsClient(replica.url);
      sockets.push(ws);
      return ws.iterate<any, Record<string, unknown>>({ query: DASHBOARD, variables: { refs }, extensions });
    };
    const held = (await open(left, { livePatch: 'json-patch', liveResume: true }).next()).value;
    // The query held on the replica the client will reconnect to (by viewers of this very document).
    const holder = open(joined, {});
    let current = (await holder.next()).value;
    const gift = orders[2]!.gifts[1]!;
    await sandbox.control.redeem(gift);
    const redeemed = (data: any) => data.campaigns[2].gifts.edges.some((e: any) => e.node.uuid === gift && e.node.status === 'REDEEMED');
    while (!redeemed(current.data)) current = (await holder.next()).value;
    // The same data hashes the same on every replica: the one it reconnects to patches from what it held.
    const resumed = (await open(joined, { livePatch: 'json-patch', liveResume: { revision: held.revision, hash: held.extensions.liveHash } }).next())
      .value;
    expect(resumed).toMatchObject({ revision: held.revision + 1, patch: expect.any(Array) });
    expect(applyJSONPatch(structuredClone(held.data), resumed.patch)).toEqual(current.data);
    await holder.return?.();
  });
});
