import { describe, expect } from 'vitest';
import { addDays, pacificToday } from '../../src/shared/pacific-time.js';
import { createDirectLinkOrder, createEmailOrder, uniqueId } from '../support/fixtures.js';
import type { TestSandbox } from '../support/sandbox.js';
import { testWith } from '../support/test.js';

// Money safety when answers are lost: the gateway never reports another order as this request's success,
// never loses or duplicates an order, and says "outcome unknown" (typed, with what to do) for any write that
// may have happened. Every count is the sandbox's own (`/__sandbox/stats`), not the gateway's.

const it = testWith({ sandboxOptions: { balances: { USD: 100_000_000 } } });
it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

const UNKNOWN = '... on OutcomeUnknown { message retrySameIdIsSafe checkBefore }';
const CONFLICT = '... on IdempotencyConflict { message id conflictingFields }';

const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename ... on CreateCampaignPayload { orderId orderUuid links campaign { id uuid } } ${CONFLICT} ${UNKNOWN}
  ... on UpstreamRejected { code status message } } }`;
const LINKS = `mutation($input: CreateDirectLinksInput!) { createDirectLinks(input: $input) {
  __typename ... on CreateCampaignPayload { orderId orderUuid links } ${CONFLICT} ${UNKNOWN} } }`;
const EMBED = `mutation($input: CreateEmbeddedRewardInput!) { createEmbeddedReward(input: $input) {
  __typename ... on CreateEmbeddedRewardPayload { rewardLink campaign { id uuid } } ${CONFLICT} ${UNKNOWN} } }`;
const ADD = `mutation($input: AddFundsInput!) { addFunds(input: $input) {
  __typename ... on AddFundsPayload { funds { usd: balance(currency: "USD") { availableInCents } } } ${CONFLICT} ${UNKNOWN} } }`;
const RESEND = `mutation($uuid: ID!) { resendGift(uuid: $uuid) {
  __typename ... on GiftPayload { gift { redeliveryCount } } ${UNKNOWN} } }`;
const CANCEL_GIFT = `mutation($uuid: ID!) { cancelGift(uuid: $uuid) {
  __typename ... on GiftPayload { gift { status } } ${UNKNOWN} } }`;
const CANCEL_CAMPAIGN = `mutation($ref: ID!) { cancelCampaign(ref: $ref) {
  __typename ... on CancelCampaignPayload { cancelled alreadyFinal failed } } }`;

const creates = async (sandbox: TestSandbox, id: string) => (await sandbox.control.stats()).creates[id] ?? 0;

function emailInput(overrides: Record<string, unknown> = {}) {
  return {
    id: uniqueId('safe'),
    priceInCents: 1000,
    reward: { brand: 'sbxcoffeeus' },
    contacts: [{ email: 'ada@example.com' }, { email: 'grace@example.com' }],
    subject: 'Thanks',
    message: 'Thank you for your help.',
    ...overrides,
  };
}

async function giftsOf(sandbox: TestSandbox, campaignUuid: string): Promise<any[]> {
  const { body } = await sandbox.api('GET', `/gifts?campaign_uuid=${campaignUuid}&limit=100`);
  return body.gifts;
}

async function usdAvailable(sandbox: TestSandbox): Promise<number> {
  const { body } = await sandbox.api('GET', '/funds');
  return body.fundsbycurrency.USD.available_in_cents;
}

describe('1. an embedded reward under an id that names another order', () => {
  it("is an IdempotencyConflict, never the other order's link, when every answer is lost", async ({ gateway, sandbox }) => {
    const other = await createDirectLinkOrder(sandbox, { linkCount: 1, priceInCents: 1000 });
    await sandbox.control.fault({ route: 'POST /embedded', status: 503, rate: 1 });
    const { body } = await gateway.gql(EMBED, { input: { id: other.id, brand: 'sbxcoffeeus', priceInCents: 1000 } });
    const result = body.data.createEmbeddedReward;
    expect(result.__typename, JSON.stringify(body)).toBe('IdempotencyConflict');
    expect(result.conflictingFields).toContain('deliveryType');
    expect(JSON.stringify(body)).not.toContain(other.links[0]);
    expect(await creates(sandbox, other.id)).toBe(1);
  });
});

describe('2. a reused id whose answer is lost', () => {
  const today = pacificToday();
  it.for<[string, Record<string, unknown>, string[]]>([
    ['other recipients', { contacts: [{ email: 'someone.else@example.com' }] }, ['contacts']],
    ['another delivery type', { deliveryType: 'SHORTLINK', contacts: undefined, linkCount: 2 }, ['deliveryType', 'contacts']],
    ['another expiry', { expiry: addDays(today, 30) }, ['expiry']],
    ['another message', { message: 'Another text.' }, ['message']],
    ['another subject', { subject: 'Another subject' }, ['subject']],
  ])(
    'createCampaign with %s is an IdempotencyConflict naming it, as a healthy upstream answers',
    async ([, change, fields], { gateway, sandbox }) => {
      const input = emailInput();
      const first = await gateway.gql(CREATE, { input });
      expect(first.body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
      const changed = { ...input, ...change };

      const healthy = await gateway.gql(CREATE, { input: changed });
      expect(healthy.body.data.createCampaign).toMatchObject({ __typename: 'IdempotencyConflict', id: input.id, conflictingFields: fields });

      await sandbox.control.fault({ route: 'POST /campaign', status: 503, rate: 1 });
      const lost = await gateway.gql(CREATE, { input: changed });
      expect(lost.body.data.createCampaign).toEqual(healthy.body.data.createCampaign);
      expect(await creates(sandbox, input.id)).toBe(1);
    },
  );

  it('recipients match as a set, case-insensitively: the same order is recovered, not refused', async ({ gateway, sandbox }) => {
    const input = emailInput();
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
    // The same order, recipients listed in another order and case; every POST now fails, so the gateway looks it up.
    const swapped = { ...input, contacts: [{ email: 'GRACE@example.com' }, { email: 'ada@EXAMPLE.com' }] };
    await sandbox.control.fault({ route: 'POST /campaign', status: 503, rate: 1 });
    const again = await gateway.gql(CREATE, { input: swapped });
    expect(again.body.data.createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', orderUuid: body.data.createCampaign.orderUuid });
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it.for<[string, Record<string, unknown>, string[]]>([
    ['another link count', { linkCount: 3 }, ['linkCount']],
    ['another expiry', { expiry: addDays(today, 10) }, ['expiry']],
    ['another price', { priceInCents: 2500 }, ['priceInCents']],
    ['another brand', { reward: { brand: 'sbxbooksus' } }, ['reward']],
  ])("createDirectLinks with %s is an IdempotencyConflict, not the other order's links", async ([, change, fields], { gateway, sandbox }) => {
    const input = { id: uniqueId('safe-links'), priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, linkCount: 2 };
    const first = await gateway.gql(LINKS, { input });
    const links: string[] = first.body.data.createDirectLinks.links;
    await sandbox.control.fault({ route: 'POST /direct_links', reset: true, rate: 1 });
    const { body } = await gateway.gql(LINKS, { input: { ...input, ...change } });
    expect(body.data.createDirectLinks).toMatchObject({ __typename: 'IdempotencyConflict', conflictingFields: fields });
    for (const link of links) expect(JSON.stringify(body)).not.toContain(link);
    expect(await creates(sandbox, input.id)).toBe(1);
  });
});

describe('3. a 200 whose body cannot be read, on a write', () => {
  it('a create runs the recovery and reports the order it made, once', async ({ gateway, sandbox }) => {
    const input = emailInput();
    await sandbox.control.fault({ route: 'POST /campaign', garble: true, after: true, rate: 1 });
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.data.createCampaign, JSON.stringify(body)).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it('a create that was not processed is OutcomeUnknown, and the retry with the same id creates it once', async ({ gateway, sandbox }) => {
    const input = emailInput();
    await sandbox.control.fault({ route: 'POST /campaign', garble: true, rate: 1 });
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.data.createCampaign).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: true, checkBefore: null });
    expect(await creates(sandbox, input.id)).toBe(0);
    await sandbox.control.clearFaults();
    const retry = await gateway.gql(CREATE, { input });
    expect(retry.body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it('resendGift is OutcomeUnknown, not safe to repeat, and sent exactly one email', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const [gift] = await giftsOf(sandbox, order.uuid);
    await gateway.upstreamDelta();
    await sandbox.control.fault({ route: 'PUT /gifts/:uuid', garble: true, after: true, rate: 1 });
    const { body } = await gateway.gql(RESEND, { uuid: gift.uuid });
    expect(body.data.resendGift).toMatchObject({
      __typename: 'OutcomeUnknown',
      retrySameIdIsSafe: false,
      checkBefore: expect.stringContaining('redeliveryCount'),
    });
    expect(body.data.resendGift.message).not.toMatch(/retry shortly/i);
    expect((await gateway.upstreamDelta())['PUT /gifts/:uuid']).toBe(1);
    expect((await sandbox.api('GET', `/gifts/${gift.uuid}`)).body.gift.redelivery_count).toBe(1);
  });
});

describe('4. unknown outcomes reach the client as OutcomeUnknown', () => {
  it('addFunds: a recorded top-up whose answer was lost says so; the same id adds nothing twice', async ({ gateway, sandbox }) => {
    const id = uniqueId('topup');
    const before = await usdAvailable(sandbox);
    await sandbox.control.fault({ route: 'POST /funds', reset: true, rate: 1, after: true });
    const { body } = await gateway.gql(ADD, { input: { id, currency: 'USD', amountInCents: 50_000 } });
    expect(body.data.addFunds).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: true, checkBefore: null });
    expect(body.data.addFunds.message).toMatch(/may or may not/);
    expect(body.data.addFunds.message).toMatch(/same id/);
    expect(await creates(sandbox, id)).toBe(1);
    await sandbox.control.clearFaults();
    const retry = await gateway.gql(ADD, { input: { id, currency: 'USD', amountInCents: 50_000 } });
    expect(retry.body.data.addFunds.__typename).toBe('AddFundsPayload');
    expect(await creates(sandbox, id)).toBe(1);
    expect(await usdAvailable(sandbox)).toBe(before + 50_000);
  });

  it('resendGift after a 503 that followed the send: OutcomeUnknown, checkBefore redeliveryCount', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const [gift] = await giftsOf(sandbox, order.uuid);
    await gateway.upstreamDelta();
    await sandbox.control.fault({ route: 'PUT /gifts/:uuid', status: 503, rate: 1, after: true });
    const { body } = await gateway.gql(RESEND, { uuid: gift.uuid });
    expect(body.errors).toBeUndefined();
    expect(body.data.resendGift).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: false });
    expect(body.data.resendGift.checkBefore).toContain(gift.uuid);
    expect((await gateway.upstreamDelta())['PUT /gifts/:uuid']).toBe(1);
  });

  it('cancelGift after a lost answer: OutcomeUnknown, safe to repeat, and the repeat shows it cancelled', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const [gift] = await giftsOf(sandbox, order.uuid);
    await sandbox.control.fault({ route: 'DELETE /gifts/:uuid', reset: true, rate: 1, after: true });
    const { body } = await gateway.gql(CANCEL_GIFT, { uuid: gift.uuid });
    expect(body.data.cancelGift).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: true });
    await sandbox.control.clearFaults();
    const again = await gateway.gql(CANCEL_GIFT, { uuid: gift.uuid });
    expect(again.body.data.cancelGift).toMatchObject({ __typename: 'GiftPayload', gift: { status: 'CANCELLED' } });
  });

  it('a create whose lookup failed too: OutcomeUnknown; the retry with the same id answers the one order', async ({ gateway, sandbox }) => {
    const input = emailInput();
    await sandbox.control.fault({ route: 'POST /campaign', status: 503, rate: 1, after: true });
    await sandbox.control.fault({ route: 'GET /campaign/:id', status: 503, rate: 1 });
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.errors).toBeUndefined();
    expect(body.data.createCampaign).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: true });
    expect(body.data.createCampaign.message).not.toMatch(/retry shortly/i);
    expect(await creates(sandbox, input.id)).toBe(1);
    await sandbox.control.clearFaults();
    const retry = await gateway.gql(CREATE, { input });
    expect(retry.body.data.createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    expect(await creates(sandbox, input.id)).toBe(1);
  });
});

describe('5. cancelCampaign under persistent 503s after processing', () => {
  it('re-reads what it could not confirm and reports every reward cancelled, none failed', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 5 });
    await sandbox.control.fault({ route: 'DELETE /gifts/:uuid', status: 503, rate: 1, after: true });
    const { body } = await gateway.gql(CANCEL_CAMPAIGN, { ref: order.id });
    expect(body.data.cancelCampaign).toMatchObject({ __typename: 'CancelCampaignPayload', cancelled: 5, alreadyFinal: 0, failed: [] });
    expect((await giftsOf(sandbox, order.uuid)).every((g) => /CANCEL/.test(g.status))).toBe(true);
  });

  it('still reports as failed what really was not cancelled', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 3 });
    await sandbox.control.fault({ route: 'DELETE /gifts/:uuid', status: 503, rate: 1 });
    const { body } = await gateway.gql(CANCEL_CAMPAIGN, { ref: order.id });
    expect(body.data.cancelCampaign).toMatchObject({ cancelled: 0 });
    expect(body.data.cancelCampaign.failed).toHaveLength(3);
  });
});

describe('a truly lost answer (after: true) is still recovered as success, exactly once', () => {
  it('createCampaign', async ({ gateway, sandbox }) => {
    const input = emailInput();
    await sandbox.control.fault({ route: 'POST /campaign', status: 503, rate: 1, after: true });
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.data.createCampaign, JSON.stringify(body)).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it("createCampaign of a region's full catalog", async ({ gateway, sandbox }) => {
    const input = emailInput({ reward: { region: 'usa' }, priceInCents: 2500 });
    await sandbox.control.fault({ route: 'POST /campaign', reset: true, rate: 1, after: true });
    const { body } = await gateway.gql(CREATE, { input });
    expect(body.data.createCampaign, JSON.stringify(body)).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it('createDirectLinks, with its links', async ({ gateway, sandbox }) => {
    const input = {
      id: uniqueId('lost-links'),
      priceInCents: 1000,
      reward: { brand: 'sbxcoffeeus' },
      linkCount: 3,
      expiry: addDays(pacificToday(), 20),
    };
    await sandbox.control.fault({ route: 'POST /direct_links', reset: true, rate: 1, after: true });
    const { body } = await gateway.gql(LINKS, { input });
    expect(body.data.createDirectLinks, JSON.stringify(body)).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    expect(body.data.createDirectLinks.links).toHaveLength(3);
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it('createEmbeddedReward, with the link the lost answer carried', async ({ gateway, sandbox }) => {
    const input = { id: uniqueId('lost-emb'), brand: 'sbxcoffeeus', priceInCents: 500 };
    await sandbox.control.fault({ route: 'POST /embedded', status: 500, rate: 1, after: true });
    const { body } = await gateway.gql(EMBED, { input });
    expect(body.data.createEmbeddedReward, JSON.stringify(body)).toMatchObject({
      __typename: 'CreateEmbeddedRewardPayload',
      campaign: { id: input.id },
    });
    await sandbox.control.clearFaults();
    const replay = await gateway.gql(EMBED, { input });
    expect(replay.body.data.createEmbeddedReward.rewardLink).toBe(body.data.createEmbeddedReward.rewardLink);
    expect(await creates(sandbox, input.id)).toBe(1);
  });
});
