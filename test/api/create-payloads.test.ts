import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { it } from '../support/test.js';

// What a create answers: the order as it stands now (also when the upstream replays an earlier answer), and
// for an order refused for its recipients, which address was refused.

/** The sandbox declines this top-up amount as a failed card charge (402). */
const DECLINED = 40_200;

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename
  ... on CreateCampaignPayload {
    replayed funding orderUuid
    campaign { id status contactsFailureCount contacts { email addedSuccessfully message }
      gifts(first: 5) { edges { node { campaign { status } } } } }
  }
  ... on UpstreamRejected { code status contacts { email firstName addedSuccessfully message } }
  ... on Error { message }
} }`;

function emailInput(contacts: { email: string; firstName?: string }[]) {
  return { id: uniqueId('payload'), priceInCents: 500, reward: { brand: 'sbxcoffeeus' }, contacts, subject: 'Thanks', message: 'Thank you.' };
}

describe('a replayed create shows the order as it stands now', () => {
  it('re-sending a create says replayed and reads the order fresh, with one GET shared by the operation', async ({ gateway, sandbox }) => {
    const input = emailInput([{ email: 'ada@example.com' }]);
    const first = await gateway.gql(CREATE, { input });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.createCampaign).toMatchObject({ replayed: false, campaign: { id: input.id, status: 'CREATING' } });

    // The sandbox finishes creating the order before its next request, as production does in the background.
    expect((await sandbox.api('GET', `/campaign/${input.id}`)).body.campaign.status).toBe('CAMPAIGN_CREATED');
    await gateway.upstreamDelta();
    const again = await gateway.gql(CREATE, { input });
    expect(again.body.errors).toBeUndefined();
    const payload = again.body.data.createCampaign;
    expect(payload).toMatchObject({ replayed: true, funding: 'FUNDED', orderUuid: first.body.data.createCampaign.orderUuid });
    expect(payload.campaign.status).toBe('CREATED');
    expect(payload.campaign.gifts.edges.map((e: any) => e.node.campaign.status)).toEqual(['CREATED']);
    const calls = await gateway.upstreamDelta();
    expect(calls['GET /campaign/:id']).toBe(1);
    expect(calls['POST /campaign']).toBe(1);
    expect((await sandbox.control.stats()).creates[input.id]).toBe(1);
  });

  it('createEmbeddedReward says replayed on a re-send and keeps its reward link', async ({ gateway, sandbox }) => {
    const EMBED = `mutation($input: CreateEmbeddedRewardInput!) { createEmbeddedReward(input: $input) {
      ... on CreateEmbeddedRewardPayload { replayed rewardLink campaign { id status } }
      ... on Error { message }
    } }`;
    const input = { id: uniqueId('embed'), brand: 'sbxcoffeeus', priceInCents: 500 };
    const first = await gateway.gql(EMBED, { input });
    expect(first.body.data.createEmbeddedReward).toMatchObject({ replayed: false, campaign: { id: input.id } });
    const again = await gateway.gql(EMBED, { input });
    expect(again.body.data.createEmbeddedReward).toEqual({
      ...first.body.data.createEmbeddedReward,
      replayed: true,
      campaign: { id: input.id, status: 'CREATED' },
    });
    expect((await sandbox.control.stats()).creates[input.id]).toBe(1);
  });
});

describe('per-recipient results of a refused order', () => {
  it('UpstreamRejected lists each contact with whether it was accepted and why not', async ({ gateway, sandbox }) => {
    const input = emailInput([{ email: 'ada@mail.invalid', firstName: 'Ada' }, { email: 'bob@nowhere.invalid' }]);
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.errors).toBeUndefined();
    expect(body.data.createCampaign).toEqual({
      __typename: 'UpstreamRejected',
      code: 'ERROR_CAMPAIGN_NO_CONTACTS',
      status: 422,
      message: expect.stringContaining('No contact of the campaign could be accepted'),
      contacts: [
        { email: 'ada@mail.invalid', firstName: 'Ada', addedSuccessfully: false, message: 'Email address cannot receive mail' },
        { email: 'bob@nowhere.invalid', firstName: null, addedSuccessfully: false, message: 'Email address cannot receive mail' },
      ],
    });
    expect((await sandbox.control.stats()).creates[input.id]).toBeUndefined();
  });

  it('an accepted order with one refused address shows which one on its contacts', async ({ gateway }) => {
    const input = emailInput([{ email: 'ada@example.com' }, { email: 'bob@nowhere.invalid' }]);
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.data.createCampaign.campaign).toMatchObject({
      contactsFailureCount: 1,
      contacts: [
        { email: 'ada@example.com', addedSuccessfully: true },
        { email: 'bob@nowhere.invalid', addedSuccessfully: false, message: 'Email address cannot receive mail' },
      ],
    });
  });

  it('a rejection without per-recipient results has contacts null', async ({ gateway }) => {
    const { body } = await gateway.gql(
      'mutation($input: AddFundsInput!) { addFunds(input: $input) { __typename ... on UpstreamRejected { code contacts { email } } } }',
      { input: { id: uniqueId('declined'), currency: 'USD', amountInCents: DECLINED } },
    );
    expect(body.data.addFunds).toEqual({ __typename: 'UpstreamRejected', code: 'ERROR_FUNDS_CARD_ERROR', contacts: null });
  });
});
