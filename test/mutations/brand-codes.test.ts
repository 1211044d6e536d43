import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { it } from '../support/test.js';

// Brand codes as people type them: case does not matter (as for regions), the upstream gets the catalog's
// spelling, and a near miss is answered with the codes it probably meant.

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
  it('match ignoring case, and the upstream receives the catalog spelling', async ({ gateway }) => {
    const res = await gateway.gql(CREATE, { input: input({ brand: 'SbxCoffeeUS' }) });
    expect(res.body.data.createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', campaign: { brandCodes: ['sbxcoffeeus'] } });
    const many = await gateway.gql(CREATE, { input: input({ brands: ['SBXCOFFEEUS', 'sbxBooksUS'] }) });
    expect(many.body.data.createCampaign.campaign.brandCodes).toEqual(['sbxcoffeeus', 'sbxbooksus']);
  });

  it('answer a near miss with a suggestion, before anything is sent to create', async ({ gateway }) => {
    await gateway.upstreamDelta();
    const res = await gateway.gql(CREATE, { input: input({ brand: 'sbxcofeeus' }) });
    expect(res.body.data.createCampaign.__typename).toBe('ValidationError');
    const [issue] = res.body.data.createCampaign.issues;
    expect(issue.path).toEqual(['input', 'reward', 'brand']);
    // Best first: one letter away, then the Canadian twin two letters away.
    expect(issue.message).toBe('sbxcofeeus is not a known brand; did you mean sbxcoffeeus or sbxcoffeeca?');
    expect((await gateway.upstreamDelta())['POST /campaign'] ?? 0).toBe(0);
  });

  it('say nothing more for a code nothing resembles', async ({ gateway }) => {
    const res = await gateway.gql(CREATE, { input: input({ brand: 'no-such-thing-at-all' }) });
    expect(res.body.data.createCampaign.issues[0].message).toBe('no-such-thing-at-all is not a known brand');
  });

  it('brand(code) finds a brand whatever the case', async ({ gateway }) => {
    const res = await gateway.gql('{ brand(code: "SBXCOFFEEUS") { brandCode name } }');
    expect(res.body.data.brand).toMatchObject({ brandCode: 'sbxcoffeeus' });
  });
});

describe('a create whose catalog cannot be read', () => {
  // The catalog turns what the caller typed into the upstream's spelling. Without it the body would depend on
  // whether the catalog happened to be readable, so a retry with the same id could send another body and be
  // refused as a different order. Nothing is sent instead, and the caller hears that nothing was sent.
  it.for([
    ['brand', 'GET /brands/:code', { brand: 'SbxBooksCA' }],
    ['region', 'GET /regions', { region: 'canada' }],
  ] as const)('by %s: nothing is sent, and the error says so', async ([, route, reward], { gatewayWith }) => {
    const fresh = await gatewayWith();
    await fresh.sandbox.control.fault({ route, status: 503, rate: 1 });
    try {
      await fresh.upstreamDelta();
      const res = await fresh.gql(CREATE, { input: input(reward) });
      expect(res.body.data?.createCampaign ?? null).toBeNull();
      const error = res.body.errors?.[0];
      expect(error?.extensions?.code, res.text).toBe('CATALOG_UNAVAILABLE');
      expect(error?.message).toMatch(/nothing was sent/i);
      expect((await fresh.upstreamDelta())['POST /campaign'] ?? 0).toBe(0);
    } finally {
      await fresh.sandbox.control.clearFaults();
    }
  });
});
