import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// Brand codes as people type them: case does not matter (as for regions), the upstream gets the catalog's
// spelling, and a near miss is answered with the codes it probably meant.

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename
  ... on CreateCampaignPayload { campaign { id brandCodes } }
  ... on ValidationError { issues { path message } }
} }`;

const input = (reward: Record<string, unknown>) => ({
  id: uniqueId('brand-case'),
  priceInCents: 1000,
  reward,
  contacts: [{ email: 'ada@example.com' }],
  subject: 'Thanks',
  message: 'Thank you.',
});

describe('brand codes', () => {
  it('match ignoring case, and the upstream receives the catalog spelling', async () => {
    const res = await gw.gql(CREATE, { input: input({ brand: 'SbxCoffeeUS' }) });
    expect(res.body.data.createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', campaign: { brandCodes: ['sbxcoffeeus'] } });
    const many = await gw.gql(CREATE, { input: input({ brands: ['SBXCOFFEEUS', 'sbxBooksUS'] }) });
    expect(many.body.data.createCampaign.campaign.brandCodes).toEqual(['sbxcoffeeus', 'sbxbooksus']);
  });

  it('answer a near miss with a suggestion, before anything is sent to create', async () => {
    await gw.upstreamDelta();
    const res = await gw.gql(CREATE, { input: input({ brand: 'sbxcofeeus' }) });
    expect(res.body.data.createCampaign.__typename).toBe('ValidationError');
    const [issue] = res.body.data.createCampaign.issues;
    expect(issue.path).toEqual(['input', 'reward', 'brand']);
    // Best first: one letter away, then the Canadian twin two letters away.
    expect(issue.message).toBe('sbxcofeeus is not a known brand; did you mean sbxcoffeeus or sbxcoffeeca?');
    expect((await gw.upstreamDelta())['POST /campaign'] ?? 0).toBe(0);
  });

  it('say nothing more for a code nothing resembles', async () => {
    const res = await gw.gql(CREATE, { input: input({ brand: 'no-such-thing-at-all' }) });
    expect(res.body.data.createCampaign.issues[0].message).toBe('no-such-thing-at-all is not a known brand');
  });

  it('brand(code) finds a brand whatever the case', async () => {
    const res = await gw.gql('{ brand(code: "SBXCOFFEEUS") { brandCode name } }');
    expect(res.body.data.brand).toMatchObject({ brandCode: 'sbxcoffeeus' });
  });
});
