import { Webhook } from 'standardwebhooks';
import { describe, expect } from 'vitest';
import type { Scope } from '../../src/security/scopes.js';
import { liveGatewayFor } from '../live/fixtures.js';
import { eventually } from '../support/cluster.js';
import { createEmailOrder } from '../support/fixtures.js';
import { GIFT_CHANGES, subscribeWs, wsClient, RESUMABLE_GIFT_CHANGES, type LiveGateway } from '../support/live.js';
import { test, apiKeys, bearer } from '../support/test.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver.js';

// Webhooks end to end: a real gateway over the sandbox, its real egress, and a receiver on loopback (allowed by
// WEBHOOK_ALLOWED_HOSTS=127.0.0.1). Retries are fast (WEBHOOK_RETRY_BASE_MS=10) and the retry window short, so
// the suite waits on requests the receiver gets, never on a clock.

const WEBHOOK_SCOPES: Scope[] = ['rewards:read', 'webhooks:read', 'webhooks:write'];
const KEYS = apiKeys({
  owner: WEBHOOK_SCOPES,
  other: WEBHOOK_SCOPES,
  capped: WEBHOOK_SCOPES,
  reader: ['rewards:read', 'webhooks:read'],
  noRewards: ['webhooks:read', 'webhooks:write'],
});
const ENV = {
  GATEWAY_API_KEYS: JSON.stringify(Object.values(KEYS)),
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_BASE_MS: '10',
  WEBHOOK_RETRY_FOR_MS: '1500',
  WEBHOOK_MAX_ENDPOINTS_PER_KEY: '8',
  LOG_LEVEL: 'info',
};
/** The gateway's log lines, parsed. */
const logLines: { msg: string; [field: string]: unknown }[] = [];
const logTo = { write: (line: string) => void logLines.push(JSON.parse(line)) };

/** What the gateway's webhook egress resolves names with: `hooks.test` is the receiver's name, changed by a test. */
const dnsTable = new Map<string, string[]>([
  ['hooks.test', ['127.0.0.1']],
  ['private.test', ['10.1.2.3']],
]);
const webhookLookup = async (name: string) => {
  const addresses = dnsTable.get(name);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
};

const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) => liveGatewayFor(onCleanup, { env: ENV, logTo, webhookLookup }))
  // eslint-disable-next-line no-empty-pattern -- as above
  .extend('receiver', async ({}, { onCleanup }) => {
    const receiver = await startWebhookReceiver();
    onCleanup(() => receiver.close());
    return receiver;
  });

async function gql(gw: LiveGateway, key: { key: string }, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

const CREATE = /* GraphQL */ `
  mutation ($input: CreateWebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) {
      __typename
      ... on CreateWebhookEndpointPayload {
        secret
        endpoint {
          id
          url
          type
          enabled
        }
      }
      ... on ValidationError {
        message
        issues {
          path
          message
        }
      }
    }
  }
`;

const ENDPOINT = /* GraphQL */ `
  query {
    webhookEndpoints {
      id
      enabled
      disabledReason
      pendingDeliveries
      position
    }
  }
`;

const DELIVERIES = /* GraphQL */ `
  query ($endpoint: ID!) {
    webhookDeliveries(endpoint: $endpoint, first: 50) {
      totalCount
      edges {
        node {
          id
          cursor
          status
          attempts {
            statusCode
            durationMs
            error
          }
        }
      }
    }
  }
`;

interface Registered {
  id: string;
  secret: string;
}

async function register(gw: LiveGateway, receiver: WebhookReceiver, campaign: string, key: { key: string } = KEYS.owner): Promise<Registered> {
  const body = await gql(gw, key, CREATE, { input: { url: `${receiver.url}/hooks`, subscription: GIFT_CHANGES, variables: { campaign } } });
  const result = body.data?.createWebhookEndpoint;
  if (result?.__typename !== 'CreateWebhookEndpointPayload') throw new Error(`registration refused: ${JSON.stringify(body)}`);
  return { id: result.endpoint.id, secret: result.secret };
}

async function giftsOf(gw: LiveGateway, uuid: string): Promise<string[]> {
  return ((await gw.sandbox.api('GET', `/gifts?campaign_uuid=${uuid}`)).body.gifts as { uuid: string }[]).map((g) => g.uuid);
}

const json = (request: ReceivedRequest) => JSON.parse(request.body);
const headersOf = (request: ReceivedRequest) => request.headers as Record<string, string>;

/** The order being watched, once the endpoint's subscription has its baseline poll (events after it are changes). */
async function watchedOrder(gw: LiveGateway, recipients: number) {
  const order = await createEmailOrder(gw.sandbox, { recipients });
  return { order, gifts: await giftsOf(gw, order.uuid), key: `campaign:${order.uuid}` };
}

describe('webhook delivery', () => {
  it('a redemption arrives as one signed POST with type, timestamp, cursor and data', async ({ live: gw, receiver }) => {
    const { order, gifts, key } = await watchedOrder(gw, 1);
    const endpoint = await register(gw, receiver, order.id);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await gw.watch.until(() => gw.watch.completed(key) >= 1);
    await gw.sandbox.control.redeem(gifts[0]!);
    await receiver.until(() => receiver.received.length >= 1);

    const [request] = receiver.received;
    const payload = new Webhook(endpoint.secret).verify(request!.body, headersOf(request!));
    expect(payload).toEqual({
      type: 'giftStatusChanged',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      cursor: expect.any(String),
      data: { giftStatusChanged: { gift: { uuid: gifts[0], status: 'REDEEMED' } } },
    });
    expect(headersOf(request!)['webhook-signature']).toMatch(/^v1,/);
    expect(headersOf(request!)['webhook-id']).toMatch(/^msg_/);
    // The secret is shown once: never again in what the API answers.
    const listed = await gql(gw, KEYS.owner, ENDPOINT);
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).not.toContain(endpoint.secret);
    expect(metrics).toMatch(/reward_gateway_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
  });

  it('a receiver failing three times gets four attempts with one webhook-id, recorded in webhookDeliveries', async ({ live: gw, receiver }) => {
    const { order, gifts, key } = await watchedOrder(gw, 1);
    const endpoint = await register(gw, receiver, order.id);
    receiver.answer(500, 503, 500);
    await gw.watch.until(() => gw.watch.completed(key) >= 1);
    await gw.sandbox.control.redeem(gifts[0]!);
    await receiver.until(() => receiver.accepted().length >= 1);

    expect(receiver.received.map((r) => r.status)).toEqual([500, 503, 500, 200]);
    expect(new Set(receiver.received.map((r) => headersOf(r)['webhook-id'])).size).toBe(1);
    for (const request of receiver.received) new Webhook(endpoint.secret).verify(request.body, headersOf(request));
    // The receiver answers before the gateway records the answer.
    const deliveries = await eventually(async () => {
      const page = (await gql(gw, KEYS.owner, DELIVERIES, { endpoint: endpoint.id })).data.webhookDeliveries;
      return page.edges[0]?.node.status === 'DELIVERED' && page;
    });
    expect(deliveries.totalCount).toBe(1);
    const [delivery] = deliveries.edges.map((e: any) => e.node);
    expect(delivery.id).toBe(headersOf(receiver.received[0]!)['webhook-id']);
    expect(delivery.status).toBe('DELIVERED');
    expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 503, 500, 200]);
    expect(delivery.attempts.map((a: any) => a.error)).toEqual(['HTTP 500', 'HTTP 503', 'HTTP 500', null]);
  });

  it('delivers in the order a WebSocket subscriber sees, a later event waiting for an earlier one being retried', async ({ live: gw, receiver }) => {
    const { order, gifts, key } = await watchedOrder(gw, 3);
    await register(gw, receiver, order.id);
    const ws = wsClient(gw.url, { connectionParams: { authorization: `Bearer ${KEYS.owner.key}` } });
    try {
      // The endpoint's subscription is accepted with the order's first view, then the WebSocket's: waiting for the
      // first poll alone let the redemptions race a WebSocket subscription still on its way, which missed them.
      await gw.watch.until(() => gw.watch.completed(key) >= 1);
      const subscribers = gw.gateway.live.stats().subscribers;
      const stream = subscribeWs(ws, RESUMABLE_GIFT_CHANGES, { campaign: order.id });
      await eventually(() => gw.gateway.live.stats().subscribers > subscribers);
      receiver.answer(500, 500);
      for (const gift of gifts) await gw.sandbox.control.redeem(gift);
      await receiver.until(() => receiver.accepted().length >= 3);
      await stream.take(3);
      const seen = stream.received.map((r) => r.data.giftStatusChanged);
      const accepted = receiver.accepted().map(json);
      expect(accepted.map((p) => p.cursor)).toEqual(seen.map((e) => e.cursor));
      expect(accepted.map((p) => p.data.giftStatusChanged.gift.uuid)).toEqual(seen.map((e) => e.gift.uuid));
      // The first event was refused twice, and nothing after it was sent before it was accepted.
      expect(receiver.received.slice(0, 3).map((r) => json(r).cursor)).toEqual([seen[0].cursor, seen[0].cursor, seen[0].cursor]);
      stream.close();
    } finally {
      await ws.dispose();
    }
  });

  it('replays every event after a cursor, with the original webhook-ids', async ({ live: gw, receiver }) => {
    const { order, gifts, key } = await watchedOrder(gw, 3);
    const endpoint = await register(gw, receiver, order.id);
    await gw.watch.until(() => gw.watch.completed(key) >= 1);
    for (const gift of gifts) await gw.sandbox.control.redeem(gift);
    await receiver.until(() => receiver.accepted().length >= 3);
    const first = receiver.accepted().map((r) => ({ id: headersOf(r)['webhook-id'], cursor: json(r).cursor }));

    const replayed = await gql(
      gw,
      KEYS.owner,
      /* GraphQL */ `
        mutation ($endpoint: ID!, $after: String!) {
          replayWebhookEvents(endpoint: $endpoint, after: $after) {
            __typename
          }
        }
      `,
      { endpoint: endpoint.id, after: first[0]!.cursor },
    );
    expect(replayed.data.replayWebhookEvents.__typename).toBe('WebhookEndpointPayload');
    await receiver.until(() => receiver.accepted().length >= 5);
    const again = receiver
      .accepted()
      .slice(3)
      .map((r) => ({ id: headersOf(r)['webhook-id'], cursor: json(r).cursor }));
    expect(again).toEqual(first.slice(1));
  });

  it('after a rotation both the new and the old secret verify the signature', async ({ live: gw, receiver }) => {
    const { order, gifts, key } = await watchedOrder(gw, 1);
    const endpoint = await register(gw, receiver, order.id);
    const rotated = await gql(
      gw,
      KEYS.owner,
      /* GraphQL */ `
        mutation ($endpoint: ID!) {
          rotateWebhookSecret(endpoint: $endpoint) {
            ... on RotateWebhookSecretPayload {
              secret
              endpoint {
                previousSecretExpiresAt
              }
            }
          }
        }
      `,
      { endpoint: endpoint.id },
    );
    const { secret, endpoint: after } = rotated.data.rotateWebhookSecret;
    expect(secret).not.toBe(endpoint.secret);
    expect(Date.parse(after.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    await gw.watch.until(() => gw.watch.completed(key) >= 1);
    await gw.sandbox.control.redeem(gifts[0]!);
    await receiver.until(() => receiver.received.length >= 1);
    const [request] = receiver.received;
    expect(headersOf(request!)['webhook-signature']!.split(' ')).toHaveLength(2);
    new Webhook(secret).verify(request!.body, headersOf(request!));
    new Webhook(endpoint.secret).verify(request!.body, headersOf(request!));
  });

  it("refuses an attempt when the receiver's name resolves somewhere forbidden since registration, and delivers once it is back", async ({
    live: gw,
    receiver,
  }) => {
    const { order, gifts, key } = await watchedOrder(gw, 1);
    const body = await gql(gw, KEYS.owner, CREATE, {
      input: { url: `http://hooks.test:${new URL(receiver.url).port}/hook`, subscription: GIFT_CHANGES, variables: { campaign: order.id } },
    });
    const endpoint = body.data.createWebhookEndpoint.endpoint.id as string;
    dnsTable.set('hooks.test', ['10.0.0.1']);
    try {
      await gw.watch.until(() => gw.watch.completed(key) >= 1);
      await gw.sandbox.control.redeem(gifts[0]!);
      const refused = await eventually(async () => {
        const page = (await gql(gw, KEYS.owner, DELIVERIES, { endpoint })).data.webhookDeliveries;
        return page.edges[0]?.node.attempts.length >= 2 && page.edges[0].node;
      });
      expect(refused.status).toBe('PENDING');
      expect(refused.attempts[0]).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(/refused by the address policy \(forbidden-address\)/),
      });
      expect(receiver.received).toEqual([]);
    } finally {
      dnsTable.set('hooks.test', ['127.0.0.1']);
    }
    await receiver.until(() => receiver.accepted().length >= 1);
    expect(json(receiver.accepted()[0]!).data.giftStatusChanged.gift.uuid).toBe(gifts[0]);
  });

  it('disables the endpoint when a delivery fails for the whole retry window, saying why, and resumes when enabled', async ({
    live: gw,
    receiver,
  }) => {
    const { order, gifts, key } = await watchedOrder(gw, 1);
    const endpoint = await register(gw, receiver, order.id);
    receiver.answerAlways(500);
    await gw.watch.until(() => gw.watch.completed(key) >= 1);
    await gw.sandbox.control.redeem(gifts[0]!);
    const state = async () => ((await gql(gw, KEYS.owner, ENDPOINT)).data.webhookEndpoints as any[]).find((e) => e.id === endpoint.id);
    const disabled = await eventually(async () => {
      const now = await state();
      return !now.enabled && now;
    });
    expect(disabled.disabledReason).toMatch(/deliveries failed since .* \(last attempt: HTTP 500\)/);
    expect(disabled.pendingDeliveries).toBe(1);
    const said = logLines.filter((line) => line.msg === 'webhooks: endpoint disabled');
    expect(said).toEqual([expect.objectContaining({ webhookEndpoint: endpoint.id, owner: 'owner', host: new URL(receiver.url).host })]);
    expect(JSON.stringify(logLines)).not.toContain(endpoint.secret);
    expect(logLines.map((line) => line.msg)).toContainEqual(expect.stringMatching(/^webhooks: .*do not survive a restart/));

    receiver.answerAlways(null);
    const enabled = await gql(
      gw,
      KEYS.owner,
      /* GraphQL */ `
        mutation ($id: ID!) {
          updateWebhookEndpoint(input: { id: $id, enabled: true }) {
            __typename
          }
        }
      `,
      { id: endpoint.id },
    );
    expect(enabled.data.updateWebhookEndpoint.__typename).toBe('WebhookEndpointPayload');
    await receiver.until(() => receiver.accepted().length >= 1);
    expect(json(receiver.accepted()[0]!).data.giftStatusChanged.gift.uuid).toBe(gifts[0]);
  });
});

describe('webhook registration', () => {
  const create = (gw: LiveGateway, key: { key: string }, url: string, subscription = GIFT_CHANGES) =>
    gql(gw, key, CREATE, { input: { url, subscription } });

  it.for([
    'http://169.254.169.254/',
    'http://10.0.0.1/hook',
    'http://[::1]/hook',
    'http://127.0.0.2/hook',
    'http://0.0.0.0/hook',
    'http://private.test/hook',
  ])('refuses %s as ValidationError naming the rule', async (url, { live: gw }) => {
    const result = (await create(gw, KEYS.owner, url)).data.createWebhookEndpoint;
    expect(result.__typename).toBe('ValidationError');
    expect(result.issues).toEqual([{ path: ['input', 'url'], message: expect.stringMatching(/^[a-z-]+: /) }]);
  });

  it('refuses a name pointing inside exactly as one that does not resolve, naming no address', async ({ live: gw }) => {
    const inside = (await create(gw, KEYS.owner, 'http://private.test/hook')).data.createWebhookEndpoint;
    const missing = (await create(gw, KEYS.owner, 'http://missing.test/hook')).data.createWebhookEndpoint;
    expect(inside.issues[0].message).not.toContain('10.1.2.3');
    expect(inside.issues[0].message.replace('private.test', 'missing.test')).toBe(missing.issues[0].message);
    expect(inside.issues[0].message).toMatch(/^forbidden-address: private\.test does not resolve to public addresses only/);
  });

  it('refuses ports other than 443 and 80 on public addresses (WEBHOOK_ALLOWED_PORTS unset)', async ({ live: gw }) => {
    for (const port of [6379, 25, 22, 2375]) {
      const result = (await create(gw, KEYS.owner, `https://93.184.215.14:${port}/hook`)).data.createWebhookEndpoint;
      expect(result.issues, String(port)).toEqual([
        { path: ['input', 'url'], message: expect.stringMatching(new RegExp(`^port: .* names port ${port};`)) },
      ]);
    }
  });

  it('refuses a document the caller may not run, or that breaks the limits, naming the rule', async ({ live: gw, receiver }) => {
    const noScope = (await create(gw, KEYS.noRewards, receiver.url)).data.createWebhookEndpoint;
    expect(noScope.__typename).toBe('ValidationError');
    expect(noScope.issues[0].message).toMatch(/^FORBIDDEN: .*rewards:read/);
    const deep = `subscription { giftStatusChanged { gift { campaign { gifts { edges { node { campaign { gifts { edges { node { campaign { gifts { edges { node { uuid } } } } } } } } } } } } } } }`;
    const tooDeep = (await create(gw, KEYS.owner, receiver.url, deep)).data.createWebhookEndpoint;
    expect(tooDeep.issues[0].message).toMatch(/^DEPTH_LIMIT_EXCEEDED: /);
    const query = (await create(gw, KEYS.owner, receiver.url, '{ webhookEndpoints { id } }')).data.createWebhookEndpoint;
    expect(query.issues[0]).toEqual({ path: ['input', 'subscription'], message: expect.stringMatching(/^subscription-shape: .*not a query/) });
    const after = (await create(gw, KEYS.owner, receiver.url, 'subscription { giftStatusChanged(after: "x") { cursor } }')).data
      .createWebhookEndpoint;
    expect(after.issues[0].message).toMatch(/must not set `after`/);
    const unknownField = (await create(gw, KEYS.owner, receiver.url, 'subscription { giftStatusChanged { nope } }')).data.createWebhookEndpoint;
    expect(unknownField.issues[0].message).toMatch(/^GRAPHQL_VALIDATION_FAILED: Cannot query field "nope"/);
  });

  it('needs webhooks:write to register and webhooks:read to list', async ({ live: gw, receiver }) => {
    const refused = await create(gw, KEYS.reader, receiver.url);
    expect(refused.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(refused.errors[0].extensions.missingScopes).toEqual(['webhooks:write']);
    const listed = await gql(gw, apiKeys({ x: ['rewards:read'] }).x, ENDPOINT);
    expect(listed.errors?.[0]?.extensions?.code).toBeDefined();
  });

  it('shows each caller only its own endpoints, and caps how many it has', async ({ live: gw, receiver }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    const mine = await register(gw, receiver, order.id, KEYS.capped);
    for (let i = 1; i < 8; i++) await register(gw, receiver, order.id, KEYS.capped);
    const third = await gql(gw, KEYS.capped, CREATE, { input: { url: receiver.url, subscription: GIFT_CHANGES, variables: { campaign: order.id } } });
    expect(third.data.createWebhookEndpoint.issues[0].message).toMatch(/^endpoint-cap: .*WEBHOOK_MAX_ENDPOINTS_PER_KEY/);

    const theirs = (await gql(gw, KEYS.other, ENDPOINT)).data.webhookEndpoints.map((e: any) => e.id);
    expect(theirs).not.toContain(mine.id);
    expect((await gql(gw, KEYS.other, DELIVERIES, { endpoint: mine.id })).data.webhookDeliveries).toBeNull();
    const deleteAs = (key: { key: string }) =>
      gql(
        gw,
        key,
        /* GraphQL */ `
          mutation ($endpoint: ID!) {
            deleteWebhookEndpoint(endpoint: $endpoint) {
              __typename
            }
          }
        `,
        { endpoint: mine.id },
      );
    expect((await deleteAs(KEYS.other)).data.deleteWebhookEndpoint.__typename).toBe('NotFound');
    expect((await deleteAs(KEYS.capped)).data.deleteWebhookEndpoint.__typename).toBe('DeleteWebhookEndpointPayload');
    // A deleted endpoint frees its place under the cap.
    await register(gw, receiver, order.id, KEYS.capped);
  });
});
