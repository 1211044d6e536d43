import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { uniqueId } from '../support/fixtures.js';

// A response format the client does not accept is refused before the operation runs: a mutation answered
// 406 must not have created anything.

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename } }`;

function create(accept: string) {
  return fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({
      query: CREATE,
      variables: {
        input: {
          id: uniqueId('accept'),
          priceInCents: 1000,
          reward: { brand: 'sbxcoffeeus' },
          contacts: [{ email: 'ada@example.com' }],
          subject: 'Thanks',
          message: 'Thank you.',
        },
      },
    }),
  });
}

describe('content negotiation', () => {
  it.each(['image/png', 'text/html', 'application/xml', 'application/json; charset=latin1'])(
    'Accept: %s answers 406 with a reason and creates no order',
    async (accept) => {
      const before = await gw.sandbox.control.stats();
      await gw.upstreamDelta();
      const res = await create(accept);
      expect(res.status).toBe(406);
      const body = await res.json();
      expect(body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
      expect(body.errors[0].message).toMatch(/application\/json/);
      expect(await gw.upstreamDelta()).toEqual({});
      expect((await gw.sandbox.control.stats()).creates).toEqual(before.creates);
    },
  );

  it.each(['application/json', 'application/graphql-response+json', '*/*', 'text/html, application/json;q=0.9', 'application/*'])(
    'Accept: %s still runs the mutation once',
    async (accept) => {
      await gw.upstreamDelta();
      const res = await create(accept);
      expect(res.status).toBe(200);
      expect((await res.json()).data.createCampaign.__typename).toBe('CreateCampaignPayload');
      expect((await gw.upstreamDelta())['POST /campaign']).toBe(1);
    },
  );
});
