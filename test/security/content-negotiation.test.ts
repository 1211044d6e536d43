import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import type { InProcessGateway } from '../support/gateway.js';
import { it } from '../support/test.js';

// A response format the client does not accept is refused before the operation runs: a mutation answered
// 406 must not have created anything.

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename } }`;

function create(gateway: InProcessGateway, accept: string) {
  return gateway.fetch('/graphql', {
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
  it.for(['image/png', 'text/html', 'application/xml', 'application/json; charset=latin1'])(
    'Accept: %s answers 406 with a reason and creates no order',
    async (accept, { gateway }) => {
      const before = await gateway.sandbox.control.stats();
      await gateway.upstreamDelta();
      const res = await create(gateway, accept);
      expect(res.status).toBe(406);
      const body = await res.json();
      expect(body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
      expect(body.errors[0].message).toMatch(/application\/json/);
      expect(await gateway.upstreamDelta()).toEqual({});
      expect((await gateway.sandbox.control.stats()).creates).toEqual(before.creates);
    },
  );

  it.for(['application/json', 'application/graphql-response+json', '*/*', 'text/html, application/json;q=0.9', 'application/*'])(
    'Accept: %s still runs the mutation once',
    async (accept, { gateway }) => {
      await gateway.upstreamDelta();
      const res = await create(gateway, accept);
      expect(res.status).toBe(200);
      expect((await res.json()).data.createCampaign.__typename).toBe('CreateCampaignPayload');
      expect((await gateway.upstreamDelta())['POST /campaign']).toBe(1);
    },
  );
});
