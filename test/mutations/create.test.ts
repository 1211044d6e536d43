import { describe, expect } from 'vitest';
import { addDays, pacificToday } from '../../src/shared/pacific-time.js';
import { uniqueId } from '../support/fixtures.js';
import { it } from '../support/test.js';

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename
  ... on CreateCampaignPayload { funding links campaign { id uuid status deliveryType priceInCents brandCodes contactsSuccessCount fees { totalInCents } } }
  ... on ValidationError { message issues { path message } }
  ... on UpstreamRejected { message code status }
  ... on IdempotencyConflict { message id }
} }`;

const LINKS = `mutation($input: CreateDirectLinksInput!) { createDirectLinks(input: $input) {
  __typename
  ... on CreateCampaignPayload { funding links campaign { id uuid deliveryType linkCount links(first: 50) { totalCount edges { node { url } } } } }
  ... on ValidationError { issues { path message } }
  ... on UpstreamRejected { code }
} }`;

function emailInput(overrides: Record<string, unknown> = {}) {
  return {
    id: uniqueId('gql'),
    priceInCents: 1000,
    reward: { brand: 'sbxcoffeeus' },
    contacts: [
      { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      { email: 'grace@example.com', firstName: 'Grace' },
    ],
    subject: 'Thanks',
    message: 'Thank you for your help.',
    ...overrides,
  };
}

describe('createCampaign', () => {
  it('creates an email order once, and a client retry with the same id returns the same order', async ({ gateway, sandbox }) => {
    const input = emailInput();
    const first = await gateway.gql(CREATE, { input });
    expect(first.body.errors).toBeUndefined();
    const payload = first.body.data.createCampaign;
    expect(payload).toMatchObject({
      __typename: 'CreateCampaignPayload',
      funding: 'FUNDED',
      links: null,
      campaign: {
        id: input.id,
        deliveryType: 'EMAIL',
        priceInCents: 1000,
        brandCodes: ['sbxcoffeeus'],
        contactsSuccessCount: 2,
        fees: { totalInCents: 2000 },
      },
    });
    const again = await gateway.gql(CREATE, { input });
    expect(again.body.data.createCampaign.campaign.uuid).toBe(payload.campaign.uuid);
    expect((await sandbox.control.stats()).creates[input.id]).toBe(1);
  });

  it('accepts a 4,096-character id and passes it through unchanged', async ({ gateway }) => {
    const id = `${uniqueId('long')}-`.padEnd(4096, 'x');
    const { body } = await gateway.gql(CREATE, { input: emailInput({ id }) });
    expect(body.data.createCampaign.campaign.id).toBe(id);
  });

  it('creates a short-link order with a brand list', async ({ gateway }) => {
    const { body } = await gateway.gql(CREATE, {
      input: {
        id: uniqueId('short'),
        deliveryType: 'SHORTLINK',
        priceInCents: 1000,
        reward: { brands: ['sbxcoffeeus', 'sbxcinemaus'] },
        linkCount: 2,
      },
    });
    expect(body.data.createCampaign).toMatchObject({
      __typename: 'CreateCampaignPayload',
      campaign: { deliveryType: 'SHORTLINK', brandCodes: ['sbxcoffeeus', 'sbxcinemaus'] },
    });
  });

  it('creates a full-catalog order by region name, sending the canonical name', async ({ gateway }) => {
    const { body } = await gateway.gql(CREATE, { input: emailInput({ reward: { region: 'usa' }, priceInCents: 2500 }) });
    expect(body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
  });

  it('a different order under a used id is an IdempotencyConflict and creates nothing', async ({ gateway, sandbox }) => {
    const input = emailInput();
    await gateway.gql(CREATE, { input });
    const { body } = await gateway.gql(CREATE, { input: { ...input, priceInCents: 2500 } });
    expect(body.data.createCampaign).toMatchObject({ __typename: 'IdempotencyConflict', id: input.id });
    expect((await sandbox.control.stats()).creates[input.id]).toBe(1);
  });

  it('a reused id is an IdempotencyConflict even when the answer is lost and the order is recovered by lookup', async ({ gateway, sandbox }) => {
    const input = emailInput();
    await gateway.gql(CREATE, { input });
    await sandbox.control.fault({ route: 'POST /campaign', status: 503, rate: 1 });
    try {
      // Every POST fails, so the gateway looks the id up and finds the earlier, different order.
      const { body } = await gateway.gql(CREATE, { input: { ...input, priceInCents: 2500 } });
      expect(body.data.createCampaign).toMatchObject({ __typename: 'IdempotencyConflict', id: input.id });
    } finally {
      await sandbox.control.clearFaults();
    }
    expect((await sandbox.control.stats()).creates[input.id]).toBe(1);
  });

  it('an upstream 4xx the gateway cannot foresee is UpstreamRejected with its code', async ({ gateway }) => {
    // A full-catalog order at a price no brand of the region offers: only the upstream knows the region's catalog.
    const { body } = await gateway.gql(CREATE, { input: emailInput({ reward: { region: 'USA' }, priceInCents: 100 }) });
    expect(body.data.createCampaign).toMatchObject({ __typename: 'UpstreamRejected', code: 'ERROR_CAMPAIGN_INVALID_BRAND', status: 422 });
  });
});

describe('an accepted order is never hidden by a failing read below it', () => {
  it("keeps orderId and funding when the campaign's gifts cannot be read", async ({ gateway, sandbox }) => {
    const input = emailInput();
    await sandbox.control.fault({ route: 'GET /gifts', status: 503, rate: 1 });
    try {
      const { body } = await gateway.gql(
        `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
        __typename ... on CreateCampaignPayload { orderId funding campaign { id gifts { totalCount } } } } }`,
        { input },
      );
      expect(body.data.createCampaign).toEqual({
        __typename: 'CreateCampaignPayload',
        orderId: input.id,
        funding: 'FUNDED',
        campaign: { id: input.id, gifts: null },
      });
      expect(body.errors).toEqual([
        expect.objectContaining({
          path: ['createCampaign', 'campaign', 'gifts'],
          extensions: expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE' }),
        }),
      ]);
      expect((await sandbox.control.stats()).creates[input.id]).toBe(1);
    } finally {
      await sandbox.control.clearFaults();
    }
  });
});

describe('createDirectLinks and createEmbeddedReward', () => {
  it('returns one link per reward, the same ones the campaign lists', async ({ gateway }) => {
    const id = uniqueId('direct');
    const { body } = await gateway.gql(LINKS, { input: { id, priceInCents: 1500, reward: { brand: 'sbxbooksus' }, linkCount: 4 } });
    expect(body.errors).toBeUndefined();
    const payload = body.data.createDirectLinks;
    expect(payload.campaign).toMatchObject({ id, deliveryType: 'DIRECT_LINK', linkCount: 4 });
    expect(payload.links).toHaveLength(4);
    expect(payload.campaign.links.edges.map((e: any) => e.node.url)).toEqual(payload.links);
  });

  it('creates an embedded reward and refuses a brand that cannot be embedded', async ({ gateway }) => {
    const EMBED = `mutation($input: CreateEmbeddedRewardInput!) { createEmbeddedReward(input: $input) {
      __typename ... on CreateEmbeddedRewardPayload { rewardLink campaign { id deliveryType } } ... on ValidationError { issues { path message } } } }`;
    const id = uniqueId('embed');
    const ok = await gateway.gql(EMBED, { input: { id, brand: 'sbxcoffeeus', priceInCents: 500 } });
    expect(ok.body.data.createEmbeddedReward).toMatchObject({
      rewardLink: expect.stringMatching(/^https?:\/\//),
      campaign: { id, deliveryType: 'EMBEDDED' },
    });

    await gateway.upstreamDelta();
    const refused = await gateway.gql(EMBED, { input: { id: uniqueId('embed'), brand: 'sbxcinemaus', priceInCents: 1000 } });
    expect(refused.body.data.createEmbeddedReward).toMatchObject({
      __typename: 'ValidationError',
      issues: [{ path: ['input', 'brand'], message: expect.stringMatching(/cannot be sent as an embedded reward/) }],
    });
    expect((await gateway.upstreamDelta())['POST /embedded'] ?? 0).toBe(0);
  });
});

describe('validation happens before any upstream call', () => {
  const today = pacificToday();
  // Each case breaks exactly one rule; the expected path points at the offending field.
  const cases: [string, Record<string, unknown>, string[], RegExp][] = [
    ['empty id', { id: '' }, ['input', 'id'], /must not be empty/],
    ['id over 4,096 characters', { id: 'x'.repeat(4097) }, ['input', 'id'], /at most 4096/],
    ['zero price', { priceInCents: 0 }, ['input', 'priceInCents'], /positive/],
    ['negative price', { priceInCents: -5 }, ['input', 'priceInCents'], /positive/],
    ['price above the ceiling', { priceInCents: 1_000_001 }, ['input', 'priceInCents'], /at most 1000000/],
    ['invalid email', { contacts: [{ email: 'not-an-email' }] }, ['input', 'contacts', '0', 'email'], /valid email/],
    [
      'duplicate email',
      { contacts: [{ email: 'a@example.com' }, { email: 'A@example.com' }] },
      ['input', 'contacts', '1', 'email'],
      /repeats recipient 0/,
    ],
    ['email order without contacts', { contacts: null }, ['input', 'contacts'], /required for email delivery/],
    ['contacts on short links', { deliveryType: 'SHORTLINK', linkCount: 2 }, ['input', 'contacts'], /refused for link delivery/],
    ['short links without a count', { deliveryType: 'SHORTLINK', contacts: null }, ['input', 'linkCount'], /required for short links/],
    ['email without subject and no template', { subject: null }, ['input', 'subject'], /required for email delivery unless giftTemplate/],
    ['empty brand list', { reward: { brands: [] } }, ['input', 'reward', 'brands'], /at least one brand/],
    ['repeated brand', { reward: { brands: ['sbxcoffeeus', 'sbxcoffeeus'] } }, ['input', 'reward', 'brands'], /must not repeat/],
    ['too many brands', { reward: { brands: Array.from({ length: 51 }, (_, i) => `b${i}`) } }, ['input', 'reward', 'brands'], /at most 50/],
    ['link count on email', { linkCount: 3 }, ['input', 'linkCount'], /short links only/],
    ['expiry today', { expiry: today }, ['input', 'expiry'], /after today/],
    ['expiry over a year out', { expiry: addDays(today, 366) }, ['input', 'expiry'], /at most one year out/],
  ];

  it.for(cases)('%s', async ([, overrides, path, message], { gateway }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(CREATE, { input: emailInput(overrides) });
    const result = body.data?.createCampaign;
    expect(result?.__typename, JSON.stringify(body)).toBe('ValidationError');
    expect(result.issues).toContainEqual({ path, message: expect.stringMatching(message) });
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('a template stands in for subject and message', async ({ gateway }) => {
    const { body } = await gateway.gql(CREATE, { input: emailInput({ subject: null, message: null, giftTemplate: 'tmpl-1' }) });
    expect(body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
  });

  const catalogCases: [string, Record<string, unknown>, string[], RegExp][] = [
    ['price not offered by a fixed-price brand', { priceInCents: 700 }, ['input', 'priceInCents'], /offers only 500, 1000, 2500 cents, not 700/],
    ['price outside a range', { reward: { brand: 'sbxbooksus' }, priceInCents: 60_000 }, ['input', 'priceInCents'], /offers 500\.\.50000 cents/],
    ['unknown brand', { reward: { brands: ['sbxcoffeeus', 'no-such-brand'] } }, ['input', 'reward', 'brands', '1'], /not a known brand/],
    ['unknown region', { reward: { region: 'Atlantis' } }, ['input', 'reward', 'region'], /not a known region/],
    ['mixed currencies', { reward: { brands: ['sbxcoffeeus', 'sbxcoffeeca'] } }, ['input', 'reward', 'brands'], /mixes currencies/],
  ];

  it.for(catalogCases)('%s (checked against the cached catalog)', async ([, overrides, path, message], { gateway }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(CREATE, { input: emailInput(overrides) });
    const result = body.data?.createCampaign;
    expect(result?.__typename, JSON.stringify(body)).toBe('ValidationError');
    expect(result.issues).toContainEqual({ path, message: expect.stringMatching(message) });
    const delta = await gateway.upstreamDelta();
    expect(delta['POST /campaign'] ?? 0).toBe(0);
  });

  it('link counts are bounded for direct links', async ({ gateway }) => {
    for (const linkCount of [0, 1001]) {
      await gateway.upstreamDelta();
      const { body } = await gateway.gql(LINKS, { input: { id: uniqueId('dl'), priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, linkCount } });
      expect(body.data.createDirectLinks.__typename).toBe('ValidationError');
      expect(body.data.createDirectLinks.issues[0].path).toEqual(['input', 'linkCount']);
      expect(await gateway.upstreamDelta()).toEqual({});
    }
  });

  it('@oneOf refuses two brand choices at once', async ({ gateway }) => {
    const { body } = await gateway.gql(CREATE, { input: emailInput({ reward: { brand: 'sbxcoffeeus', region: 'USA' } }) });
    expect(body.errors?.[0]?.message).toMatch(/exactly one key/i);
  });
});
