import { afterAll, beforeAll, expect, it } from 'vitest';
import { configProblems } from '../support/config-problems.js';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';

// WEBHOOK_ALLOWED_PORTS as an operator sets it: the ports it lists join 443 and 80 for every public host, and
// nothing else does. Registration only: the endpoint is deleted before any event could be sent.

const KEY = { name: 'hooks', key: 'Zq81rT0pLx7vB2nM9wQ4kS6d', scopes: ['funds:read', 'webhooks:read', 'webhooks:write'] };
const CREATE = `mutation ($url: String!) {
  createWebhookEndpoint(input: { url: $url, subscription: "subscription { fundsChanged { cursor } }" }) {
    __typename
    ... on CreateWebhookEndpointPayload { endpoint { id } }
    ... on ValidationError { issues { message } }
  }
}`;
const asKey = { authorization: `Bearer ${KEY.key}` };

let sandbox: TestSandbox;
let gateway: InProcessGateway;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  gateway = createTestGateway(sandbox, { env: { GATEWAY_API_KEYS: JSON.stringify([KEY]), WEBHOOK_ALLOWED_PORTS: '8443, 9000' } });
});

afterAll(async () => {
  await gateway?.close();
  await sandbox?.close();
});

it('a listed port joins 443 and 80; another stays refused', async () => {
  const created = (await gateway.gql(CREATE, { url: 'https://93.184.215.14:8443/hook' }, asKey)).body.data.createWebhookEndpoint;
  expect(created.__typename).toBe('CreateWebhookEndpointPayload');
  await gateway.gql('mutation ($id: ID!) { deleteWebhookEndpoint(endpoint: $id) { __typename } }', { id: created.endpoint.id }, asKey);
  const refused = (await gateway.gql(CREATE, { url: 'https://93.184.215.14:6379/hook' }, asKey)).body.data.createWebhookEndpoint;
  expect(refused.issues).toEqual([
    { message: expect.stringMatching(/^port: .*names port 6379; webhooks are sent to ports 443, 80, 8443, 9000 only/) },
  ]);
});

it('is refused at start-up unless every entry is a port', () => {
  for (const value of ['0', '70000', 'https', '80,,x']) {
    expect(configProblems({ WEBHOOK_ALLOWED_PORTS: value }).join('\n'), value).toMatch(/WEBHOOK_ALLOWED_PORTS.*port number from 1 to 65535/);
  }
  expect(configProblems({ WEBHOOK_ALLOWED_PORTS: '8443' })).toEqual([]);
});
