import { describe, expect } from 'vitest';
import { createEmailOrder, uniqueId } from '../support/fixtures.js';
import type { TestSandbox } from '../support/sandbox.js';
import { it } from '../support/test.js';

it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

const GIFT_RESULT = `__typename
  ... on GiftPayload { gift { uuid status deliveryStatus redeliveryCount } }
  ... on NotFound { message ref }
  ... on NotCancellable { message }
  ... on UpstreamRejected { code status }`;

async function giftsOf(sandbox: TestSandbox, campaignUuid: string): Promise<string[]> {
  const { body } = await sandbox.api('GET', `/gifts?campaign_uuid=${campaignUuid}&limit=100`);
  return body.gifts.map((g: any) => g.uuid);
}

async function usdAvailable(sandbox: TestSandbox): Promise<number> {
  const { body } = await sandbox.api('GET', '/funds');
  return body.fundsbycurrency.USD.available_in_cents;
}

const RESEND_RESULT = `__typename
  ... on GiftPayload { gift { uuid status deliveryStatus redeliveryCount } }
  ... on OutcomeUnknown { message retrySameIdIsSafe }
  ... on NotFound { message ref }
  ... on UpstreamRejected { code status }`;

describe('resendGift', () => {
  it('resends a bounced email: clears the undeliverable state and counts the redelivery', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    await sandbox.control.advanceClock(1000);
    const [uuid] = await giftsOf(sandbox, order.uuid);
    await sandbox.control.bounce(uuid!, false);
    const { body } = await gateway.gql(`mutation($uuid: ID!) { resendGift(uuid: $uuid) { ${RESEND_RESULT} } }`, { uuid });
    expect(body.data.resendGift.__typename).toBe('GiftPayload');
    expect(body.data.resendGift.gift.redeliveryCount).toBe(1);
    expect(body.data.resendGift.gift.deliveryStatus).not.toBe('TEMPORARILY_UNDELIVERABLE');
  });

  it('is never retried by the gateway: one upstream PUT even when it fails', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const [uuid] = await giftsOf(sandbox, order.uuid);
    await sandbox.control.fault({ route: 'PUT /gifts/:uuid', status: 503, rate: 1 });
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(`mutation($uuid: ID!) { resendGift(uuid: $uuid) { ${RESEND_RESULT} } }`, { uuid });
    expect(body.errors).toBeUndefined();
    expect(body.data.resendGift).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: false });
    expect(body.data.resendGift.message).toMatch(/may or may not/);
    expect((await gateway.upstreamDelta())['PUT /gifts/:uuid']).toBe(1);
  });

  it('an unknown reward is NotFound', async ({ gateway }) => {
    const { body } = await gateway.gql(`mutation { resendGift(uuid: "00000000-0000-0000-0000-000000000000") { ${RESEND_RESULT} } }`);
    expect(body.data.resendGift).toMatchObject({ __typename: 'NotFound', ref: '00000000-0000-0000-0000-000000000000' });
  });
});

describe('cancelGift', () => {
  it('cancels, returns the money, and a second cancel returns the reward unchanged without another DELETE', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1, priceInCents: 2500 });
    const [uuid] = await giftsOf(sandbox, order.uuid);
    const before = await usdAvailable(sandbox);
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(
      `mutation($uuid: ID!) {
      first: cancelGift(uuid: $uuid) { ${GIFT_RESULT} }
      second: cancelGift(uuid: $uuid) { ${GIFT_RESULT} }
    }`,
      { uuid },
    );
    expect(body.data.first).toMatchObject({ __typename: 'GiftPayload', gift: { uuid, status: 'CANCELLED' } });
    expect(body.data.second).toMatchObject({ __typename: 'GiftPayload', gift: { uuid, status: 'CANCELLED' } });
    // The second cancel saw fresh state (the first mutation made the request forget its reads).
    expect((await gateway.upstreamDelta())['DELETE /gifts/:uuid']).toBe(1);
    expect(await usdAvailable(sandbox)).toBe(before + 2500);
  });

  it('a redeemed reward is NotCancellable; an unknown one NotFound', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const [uuid] = await giftsOf(sandbox, order.uuid);
    await sandbox.control.redeem(uuid!);
    const { body } = await gateway.gql(
      `mutation($uuid: ID!) {
      redeemed: cancelGift(uuid: $uuid) { ${GIFT_RESULT} }
      unknown: cancelGift(uuid: "00000000-0000-0000-0000-000000000000") { ${GIFT_RESULT} }
    }`,
      { uuid },
    );
    expect(body.data.redeemed).toMatchObject({ __typename: 'NotCancellable', message: expect.stringMatching(/redeemed/) });
    expect(body.data.unknown.__typename).toBe('NotFound');
  });
});

describe('cancelCampaign', () => {
  const CANCEL = `mutation($ref: ID!) { cancelCampaign(ref: $ref) {
    __typename
    ... on CancelCampaignPayload { cancelled alreadyFinal failed campaign { id gifts(first: 100, status: CANCELLED) { totalCount } } }
    ... on NotFound { ref }
    ... on NotCancellable { message }
  } }`;

  it('pages through every reward, cancels the unredeemed ones, and is safe to call again', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 120, priceInCents: 500 });
    const uuids = await giftsOf(sandbox, order.uuid);
    await sandbox.control.redeem(uuids[0]!);
    await sandbox.control.redeem(uuids[1]!);
    const before = await usdAvailable(sandbox);

    const first = await gateway.gql(CANCEL, { ref: order.id });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.cancelCampaign).toMatchObject({
      __typename: 'CancelCampaignPayload',
      cancelled: 118,
      alreadyFinal: 2,
      failed: [],
      campaign: { id: order.id, gifts: { totalCount: 118 } },
    });
    expect(await usdAvailable(sandbox)).toBe(before + 118 * 500);

    await gateway.upstreamDelta();
    const again = await gateway.gql(CANCEL, { ref: order.uuid });
    expect(again.body.data.cancelCampaign).toMatchObject({ cancelled: 0, alreadyFinal: 120, failed: [] });
    expect((await gateway.upstreamDelta())['DELETE /gifts/:uuid'] ?? 0).toBe(0);
  });

  it('reports rewards whose cancel failed, and a second call finishes them', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 6 });
    await sandbox.control.fault({ route: 'DELETE /gifts/:uuid', status: 503, rate: 1, count: 40 });
    const first = await gateway.gql(CANCEL, { ref: order.id });
    const failed = first.body.data.cancelCampaign.failed;
    expect(first.body.data.cancelCampaign.cancelled + failed.length).toBe(6);
    expect(failed.length).toBeGreaterThan(0);
    await sandbox.control.clearFaults();
    const second = await gateway.gql(CANCEL, { ref: order.id });
    expect(second.body.data.cancelCampaign).toMatchObject({ cancelled: failed.length, failed: [] });
  });

  it('unknown orders are NotFound; embedded orders NotCancellable', async ({ gateway, sandbox }) => {
    const id = uniqueId('emb');
    await sandbox.api('POST', '/embedded', { id, brand_code: 'sbxcoffeeus', price_in_cents: 500 });
    const { body } = await gateway.gql(
      `mutation($ref: ID!) {
      unknown: cancelCampaign(ref: "no-such-order") { __typename ... on NotFound { ref } }
      embedded: cancelCampaign(ref: $ref) { __typename ... on NotCancellable { message } }
    }`,
      { ref: id },
    );
    expect(body.data.unknown).toEqual({ __typename: 'NotFound', ref: 'no-such-order' });
    expect(body.data.embedded.__typename).toBe('NotCancellable');
  });
});

describe('addFunds', () => {
  const ADD = `mutation($input: AddFundsInput!) { addFunds(input: $input) {
    __typename
    ... on AddFundsPayload { funds { usd: balance(currency: "USD") { availableInCents } } }
    ... on ValidationError { issues { path message } }
    ... on UpstreamRejected { code status }
  } }`;

  it('tops up once per id', async ({ gateway, sandbox }) => {
    const before = await usdAvailable(sandbox);
    const input = { id: uniqueId('fund'), currency: 'usd', amountInCents: 30_000 };
    const first = await gateway.gql(ADD, { input });
    expect(first.body.data.addFunds).toEqual({ __typename: 'AddFundsPayload', funds: { usd: { availableInCents: before + 30_000 } } });
    const again = await gateway.gql(ADD, { input });
    expect(again.body.data.addFunds.funds.usd.availableInCents).toBe(before + 30_000);
    expect(await usdAvailable(sandbox)).toBe(before + 30_000);
  });

  it('refuses amounts outside the card bounds before calling upstream', async ({ gateway }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(ADD, { input: { id: uniqueId('fund'), currency: 'USD', amountInCents: 24_999 } });
    expect(body.data.addFunds).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['input', 'amountInCents'] }] });
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('a declined card is UpstreamRejected with the card error code', async ({ gateway }) => {
    const { body } = await gateway.gql(ADD, { input: { id: uniqueId('fund'), currency: 'USD', amountInCents: 40_200 } });
    expect(body.data.addFunds).toEqual({ __typename: 'UpstreamRejected', code: 'ERROR_FUNDS_CARD_ERROR', status: 402 });
  });
});

describe('an unfunded order waits, then goes out after a top-up', () => {
  it('AWAITING_FUNDS is a payload, not an error, and the order is released by addFunds', async ({ gatewayWith }) => {
    const poor = await gatewayWith({ sandbox: { balances: { USD: 5_000 } } });
    const id = uniqueId('unfunded');
    const created = await poor.gql(
      `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
      __typename ... on CreateCampaignPayload { funding campaign { status } } } }`,
      {
        input: {
          id,
          priceInCents: 2500,
          reward: { brand: 'sbxcoffeeus' },
          contacts: [1, 2, 3, 4].map((i) => ({ email: `p${i}@example.com` })),
          subject: 's',
          message: 'm',
        },
      },
    );
    expect(created.body.data.createCampaign).toEqual({
      __typename: 'CreateCampaignPayload',
      funding: 'AWAITING_FUNDS',
      campaign: { status: 'AWAITING_FUNDS' },
    });

    // Its rewards do not exist yet: cancelling the order must say so, not report zero cancels as success.
    const cancel = await poor.gql(`mutation($id: ID!) { cancelCampaign(ref: $id) { __typename ... on NotCancellable { message } } }`, { id });
    expect(cancel.body.data.cancelCampaign).toEqual({
      __typename: 'NotCancellable',
      message: expect.stringMatching(/AWAITING_FUNDS.*once funded/),
    });

    const topUp = await poor.gql(`mutation($input: AddFundsInput!) { addFunds(input: $input) { __typename } }`, {
      input: { id: uniqueId('fund'), currency: 'USD', amountInCents: 25_000 },
    });
    expect(topUp.body.data.addFunds.__typename).toBe('AddFundsPayload');
    await poor.sandbox.control.advanceClock(1000);
    const after = await poor.gql(
      `query($id: ID!) { campaign(ref: $id) { status gifts { totalCount } } funds { balance(currency: "USD") { availableInCents reservedInCents } } }`,
      { id },
    );
    expect(after.body.data.campaign).toEqual({ status: 'CREATED', gifts: { totalCount: 4 } });
    expect(after.body.data.funds.balance).toEqual({ availableInCents: 5_000 + 25_000 - 10_000, reservedInCents: 10_000 });
  });
});
