import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startKeyIssuer, type KeyIssuer } from './issuers.js';

// Webhook endpoints belong to a token's subject at its issuer: with two issuers (AUTH_JWT_ISSUERS), the same
// subject name at the other issuer is someone else, who must not see the endpoint nor rotate its secret (a
// secret in hand signs deliveries its owner's receiver would trust).

const AUDIENCE = 'https://rewards.gateway.test';
const SCOPE = 'funds:read webhooks:read webhooks:write';
const CREATE = `mutation ($url: String!) {
  createWebhookEndpoint(input: { url: $url, subscription: "subscription { fundsChanged { cursor } }" }) {
    __typename
    ... on CreateWebhookEndpointPayload { endpoint { id } }
    ... on ValidationError { issues { path message } }
  }
}`;
const LIST = '{ webhookEndpoints { id } }';
const ROTATE = 'mutation ($id: ID!) { rotateWebhookSecret(endpoint: $id) { __typename } }';

let first: KeyIssuer;
let second: KeyIssuer;
let gateway: TestGateway;
const receiver = createServer((_req, res) => res.end());

beforeAll(async () => {
  [first, second] = await Promise.all([startKeyIssuer(AUDIENCE), startKeyIssuer(AUDIENCE)]);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    env: {
      AUTH_JWT_ISSUERS: JSON.stringify([
        { issuer: first.issuer, audience: AUDIENCE },
        { issuer: second.issuer, audience: AUDIENCE },
      ]),
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([first?.close(), second?.close()]);
  await new Promise((resolve) => receiver.close(resolve));
});

it('the same subject at another issuer neither sees an endpoint nor rotates its secret', async () => {
  const as = async (issuer: KeyIssuer) => ({ authorization: `Bearer ${await issuer.sign({ sub: 'same-name', scope: SCOPE })}` });
  const owner = await as(first);
  const stranger = await as(second);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const created = await gateway.gql(CREATE, { url }, owner);
  expect(created.body.errors, JSON.stringify(created.body)).toBeUndefined();
  expect(created.body.data.createWebhookEndpoint.__typename, JSON.stringify(created.body)).toBe('CreateWebhookEndpointPayload');
  const id = created.body.data.createWebhookEndpoint.endpoint.id as string;

  expect((await gateway.gql(LIST, undefined, stranger)).body.data.webhookEndpoints).toEqual([]);
  expect((await gateway.gql(ROTATE, { id }, stranger)).body.data?.rotateWebhookSecret?.__typename).not.toBe('RotateWebhookSecretPayload');
  expect((await gateway.gql(LIST, undefined, owner)).body.data.webhookEndpoints).toEqual([{ id }]);
  expect((await gateway.gql(ROTATE, { id }, owner)).body.data.rotateWebhookSecret.__typename).toBe('RotateWebhookSecretPayload');
});
