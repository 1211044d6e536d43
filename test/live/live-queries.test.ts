import { applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { requestDelta, subscribeSse, subscribeWs, type LiveGateway, type ResultStream } from '../support/live.js';
import { liveTestWith } from './fixtures.js';

// `query … @live`: the first result, then a result (or a JSON patch) each time what it read changes, as the
// pollers see it or as the gateway's own writes make it; nothing for a re-resolution that changed nothing.

// The read cache on (live queries re-resolve on what it drops), long enough that nothing expires during a test.
const it = liveTestWith({ CACHE_TTL_MS: '60000' });

const DASHBOARD = /* GraphQL */ `
  query Dashboard($refs: [ID!]!) @live {
    campaigns(refs: $refs) {
      id
      uuid
      status
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

const CANCEL = /* GraphQL */ `
  mutation Cancel($ref: ID!) {
    cancelCampaign(ref: $ref) {
      ... on CancelCampaignPayload {
        cancelled
      }
    }
  }
`;

async function post(gw: LiveGateway, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: unknown[] };
}

type Gift = { node: { uuid: string; status: string } };
const statuses = (result: any): string[] => result.data.campaigns[0].gifts.edges.map((e: Gift) => e.node.status);

describe.each(['graphql-ws', 'sse'] as const)('a live query over %s', (transport) => {
  const open = (gw: LiveGateway, ws: Parameters<typeof subscribeWs>[0], variables: Record<string, unknown>): ResultStream =>
    transport === 'sse' ? subscribeSse(gw.url, DASHBOARD, variables) : subscribeWs(ws, DASHBOARD, variables);

  it('sends the result, then the result again once a redemption is polled, and once more after a cancel, before the cancel answers', async ({
    live: gw,
    ws,
  }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const stream = open(gw, ws, { refs: [order.id] });
    const first = await stream.next();
    expect(first.errors).toBeUndefined();
    expect(statuses(first)).toEqual(['SENT_AND_REDEEMABLE', 'SENT_AND_REDEEMABLE']);
    // The order in the result is watched: its poller runs.
    await gw.watch.until(() => gw.watch.completed(`campaign:${order.uuid}`) >= 1);

    const gifts = first.data.campaigns[0].gifts.edges.map((e: Gift) => e.node.uuid) as string[];
    await gw.sandbox.control.redeem(gifts[0]!);
    const redeemed = await stream.next();
    expect(redeemed.data.campaigns[0].gifts.edges.find((e: Gift) => e.node.uuid === gifts[0]).node.status).toBe('REDEEMED');

    const cancel = post(gw, CANCEL, { ref: order.id });
    const cancelled = await stream.next();
    expect(cancelled.data.campaigns[0].gifts.edges.find((e: Gift) => e.node.uuid === gifts[1]).node.status).toBe('CANCELLED');
    expect(await cancel).toMatchObject({ data: { cancelCampaign: { cancelled: 1 } } });
    // The poll that finds the cancel the write already showed changes nothing, so sends nothing; every reward
    // being final, the order can change no more, and its poller stops.
    await gw.watch.until(() => gw.watch.stoppedKeys.includes(`campaign:${order.uuid}`));
    expect(stream.received).toHaveLength(3);
    stream.close();
  });
});

describe('identical live queries', () => {
  it('share one resolution per replica: ten viewers of one dashboard cost the upstream what one costs', async ({ live: gw, ws }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 3 });
    const key = `campaign:${order.uuid}`;
    const viewers = Array.from({ length: 10 }, () => subscribeWs(ws, DASHBOARD, { refs: [order.id] }));
    const firsts = await Promise.all(viewers.map((v) => v.next()));
    for (const first of firsts) expect(first).toEqual(firsts[0]);
    // Past the poller's first look and the one read past the cache that follows it (a poll later).
    await gw.watch.until(() => gw.watch.completed(key) >= 2);

    const { stats: before, polls: pollsBefore } = await gw.quietStats(key);
    const gift = firsts[0].data.campaigns[0].gifts.edges[0].node.uuid as string;
    await gw.sandbox.control.redeem(gift);
    const seconds = await Promise.all(viewers.map((v) => v.next()));
    for (const second of seconds) expect(second).toEqual(seconds[0]);
    const { stats: after, polls: pollsAfter } = await gw.quietStats(key);
    // Each poll lists the order's open rewards once; the one re-resolution the ten share reads the page of its
    // rewards the poll dropped once more (the order itself is still cached).
    const delta = requestDelta(before, after);
    expect(delta['GET /gifts']).toBe(pollsAfter - pollsBefore + 1);
    for (const viewer of viewers) viewer.close();
  });
});

describe('patches', () => {
  it('sends JSON patches with revisions when asked, and applyLiveQueryJSONPatch rebuilds every result', async ({ live: gw, ws }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const whole = subscribeWs(ws, DASHBOARD, { refs: [order.id] });
    const patched = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, { extensions: { livePatch: 'json-patch' } });
    const [first, firstPatched] = await Promise.all([whole.next(), patched.next()]);
    expect(firstPatched).toEqual({ ...first, revision: 1 });

    const gift = first.data.campaigns[0].gifts.edges[0].node.uuid as string;
    await gw.sandbox.control.redeem(gift);
    const [second, patch] = await Promise.all([whole.next(), patched.next()]);
    expect(patch).toEqual({ revision: 2, patch: [{ op: 'replace', path: '/campaigns/0/gifts/edges/0/node/status', value: 'REDEEMED' }] });
    expect(JSON.stringify(patch).length).toBeLessThan(JSON.stringify(second).length);

    async function* replay() {
      yield firstPatched;
      yield patch;
    }
    const rebuilt = [];
    for await (const result of applyLiveQueryJSONPatch(replay())) rebuilt.push(result);
    expect(rebuilt).toEqual([first, second]);
    whole.close();
    patched.close();
  });
});

describe('metrics', () => {
  it('count live queries, their resolutions by cause, and the payloads sent with their bytes', async ({ live: gw, ws }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const stream = subscribeWs(ws, DASHBOARD, { refs: [order.id] }, { extensions: { livePatch: 'json-patch' } });
    const first = await stream.next();
    await gw.sandbox.control.redeem(first.data.campaigns[0].gifts.edges[0].node.uuid as string);
    await stream.next();
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('reward_gateway_live_queries')).toBe(1);
    expect(value('reward_gateway_live_queries_distinct')).toBe(1);
    expect(value('reward_gateway_live_query_watched_orders')).toBe(1);
    expect(value('reward_gateway_live_query_resolutions_total{cause="first",changed="true"}')).toBeGreaterThanOrEqual(1);
    expect(value('reward_gateway_live_query_resolutions_total{cause="poller",changed="true"}')).toBeGreaterThanOrEqual(1);
    expect(value('reward_gateway_live_query_payloads_total{kind="patch"}')).toBeGreaterThanOrEqual(1);
    expect(value('reward_gateway_live_query_payload_bytes_total{kind="patch"}')).toBeGreaterThan(0);
    stream.close();
  });
});

describe('over a plain POST', () => {
  it('is answered once, as without @live, and leaves nothing open', async ({ live: gw }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: DASHBOARD, variables: { refs: [order.id] } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: any }).data.campaigns[0].id).toBe(order.id);
    const open = async () => /^reward_gateway_live_queries (\S+)$/m.exec(await (await fetch(`${gw.url}/metrics`)).text())?.[1];
    await expect.poll(open).toBe('0');
  });
});
