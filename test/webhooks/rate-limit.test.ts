import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// A webhook endpoint's subscription runs through the access pipeline as the key that registered it
// (edge/run-as-caller.ts), yet spends nothing of that key's rate: the registration was the caller's operation, and
// it spent; what the gateway then runs for the endpoint is its own work.

const KEY = { name: 'hooks', key: 'Wk3rT9pLx7vB2nM1wQ4kS6dZ', scopes: ['funds:read', 'webhooks:read', 'webhooks:write'] };
const auth = { authorization: `Bearer ${KEY.key}` };
const CREATE = `mutation ($url: String!) {
  createWebhookEndpoint(input: { url: $url, subscription: "subscription { fundsChanged { cursor } }" }) { __typename }
}`;

const receiver = createServer((_req, res) => res.end());
let gateway: TestGateway;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    env: {
      GATEWAY_API_KEYS: JSON.stringify([KEY]),
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      RATE_LIMIT_PER_SECOND: '0.001',
      RATE_LIMIT_BURST: '3',
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

it("an endpoint's subscription spends nothing of its registrant's rate", async () => {
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const created = await gateway.gql(CREATE, { url }, auth);
  expect(created.body.data?.createWebhookEndpoint?.__typename, created.text).toBe('CreateWebhookEndpointPayload');
  await vi.waitFor(() => expect(gateway.gateway.live.stats().subscribers).toBe(1));
  // The registration spent one of the burst of three: two operations are left, then 429.
  for (let i = 0; i < 2; i++) expect((await gateway.gql('{ __typename }', undefined, auth)).status).toBe(200);
  expect((await gateway.gql('{ __typename }', undefined, auth)).status).toBe(429);
});
