import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import type { TestSandbox } from '../support/sandbox.js';
import { testWith } from '../support/test.js';

// Findings of an adversarial review of the money paths, each reproduced through the gateway against the
// sandbox and counted in /__sandbox/stats.

const it = testWith({ sandboxOptions: { balances: { USD: 100_000_000 } } });
it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

const UNKNOWN = '... on OutcomeUnknown { message retrySameIdIsSafe }';
const CONFLICT = '... on IdempotencyConflict { id conflictingFields }';
const CREATE = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
  __typename ... on CreateCampaignPayload { orderId orderUuid replayed campaign { id uuid } } ${CONFLICT} ${UNKNOWN} } }`;
const EMBED = `mutation($input: CreateEmbeddedRewardInput!) { createEmbeddedReward(input: $input) {
  __typename ... on CreateEmbeddedRewardPayload { rewardLink replayed campaign { id uuid } } ${CONFLICT} ${UNKNOWN} } }`;
const ADD = `mutation($input: AddFundsInput!) { addFunds(input: $input) {
  __typename ... on AddFundsPayload { funds { usd: balance(currency: "USD") { availableInCents } } } ${CONFLICT} ${UNKNOWN} } }`;

const creates = async (sandbox: TestSandbox, id: string) => (await sandbox.control.stats()).creates[id] ?? 0;

function emailInput(overrides: Record<string, unknown> = {}) {
  return {
    id: uniqueId('review'),
    priceInCents: 1000,
    reward: { brand: 'sbxcoffeeus' },
    contacts: [{ email: 'ada@example.com' }],
    subject: 'Thanks',
    message: 'Thank you.',
    ...overrides,
  };
}

// GET /campaign/{id} takes the caller id *or the uuid*. A new create whose id happens to be another order's
// uuid finds that other order when it looks its id up; it must never be reported as this create's order.
describe("a create whose id is another order's uuid", () => {
  it('reports the order it made, not the order whose uuid the id is', async ({ gateway, sandbox }) => {
    const first = await gateway.gql(CREATE, { input: emailInput() });
    const other = first.body.data.createCampaign;
    expect(other.__typename).toBe('CreateCampaignPayload');

    const input = emailInput({ id: other.orderUuid });
    const { body } = await gateway.gql(CREATE, { input });
    const result = body.data.createCampaign;
    expect(result, JSON.stringify(body)).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    // Whether it was a replay cannot be told from a lookup that found another order: null, never true.
    expect(result.replayed).toBeNull();
    expect(result.orderUuid).not.toBe(other.orderUuid);
    expect(result.campaign.id).toBe(input.id);
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it('is never recovered as the other order when its answer is lost before it was processed', async ({ gateway, sandbox }) => {
    const sameFields = emailInput();
    const first = await gateway.gql(CREATE, { input: sameFields });
    const other = first.body.data.createCampaign;
    expect(other.__typename).toBe('CreateCampaignPayload');

    // The very same order fields, under an id that is the first order's uuid; no POST gets through.
    const input = { ...sameFields, id: other.orderUuid };
    await sandbox.control.fault({ route: 'POST /campaign', status: 503, rate: 1 });
    const { body } = await gateway.gql(CREATE, { input });
    expect(JSON.stringify(body)).not.toContain(sameFields.id);
    expect(body.data.createCampaign, JSON.stringify(body)).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: true });
    expect(await creates(sandbox, input.id)).toBe(0);

    await sandbox.control.clearFaults();
    const retry = await gateway.gql(CREATE, { input });
    expect(retry.body.data.createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: input.id });
    expect(await creates(sandbox, input.id)).toBe(1);
  });

  it('an embedded reward under such an id is not said to be replayed, nor shown as the other order', async ({ gateway, sandbox }) => {
    const first = await gateway.gql(CREATE, { input: emailInput() });
    const other = first.body.data.createCampaign;
    const input = { id: other.orderUuid, brand: 'sbxcoffeeus', priceInCents: 500 };
    const { body } = await gateway.gql(EMBED, { input });
    expect(body.data.createEmbeddedReward, JSON.stringify(body)).toMatchObject({
      __typename: 'CreateEmbeddedRewardPayload',
      replayed: null,
      campaign: { id: input.id },
    });
    expect(await creates(sandbox, input.id)).toBe(1);
  });
});
// A replayed top-up is answered with the original response, balances as they stood then. The payload must
// show the balance as it stands now, as a create's payload does since issue 13.
describe('an addFunds replay', () => {
  it('shows the balance as it stands now, not the one the original answer carried', async ({ gateway, sandbox }) => {
    const input = { id: uniqueId('topup'), currency: 'USD', amountInCents: 50_000 };
    const first = await gateway.gql(ADD, { input });
    expect(first.body.data.addFunds.__typename).toBe('AddFundsPayload');

    // Money moves after the top-up: an order is paid from the balance.
    const order = await gateway.gql(CREATE, { input: emailInput({ priceInCents: 2500 }) });
    expect(order.body.data.createCampaign.__typename).toBe('CreateCampaignPayload');
    const now = (await sandbox.api('GET', '/funds')).body.fundsbycurrency.USD.available_in_cents;
    expect(now).toBeLessThan(first.body.data.addFunds.funds.usd.availableInCents);

    const replay = await gateway.gql(ADD, { input });
    expect(replay.body.data.addFunds).toEqual({ __typename: 'AddFundsPayload', funds: { usd: { availableInCents: now } } });
    expect(await creates(sandbox, input.id)).toBe(1);
  });
});

// SafeInt is exact up to 2^53 − 1. An amount beyond it cannot be read exactly, so it must not be read at all:
// a top-up whose answer carries such a balance was recorded upstream, and "Unexpected error." (INTERNAL) would
// invite a second top-up with a new id.
describe('money past 2^53 − 1 on the wire', () => {
  it('a recorded top-up whose answer holds an unsafe balance is OutcomeUnknown, never an unexpected error', async ({ gatewayWith }) => {
    const edge = await gatewayWith({ sandbox: { balances: { USD: Number.MAX_SAFE_INTEGER - 20_000 } } });
    const input = { id: uniqueId('topup'), currency: 'USD', amountInCents: 50_000 };
    const { body } = await edge.gql(ADD, { input });
    expect(body.errors, JSON.stringify(body)).toBeUndefined();
    expect(body.data.addFunds).toMatchObject({ __typename: 'OutcomeUnknown', retrySameIdIsSafe: true });
    expect((await edge.sandbox.control.stats()).creates[input.id]).toBe(1);
  });
});

// A direct-link order accepted while waiting for funds is answered with no links (they exist once funded).
// Re-sending the create later repeats that answer; the payload says FUNDED (read fresh) and must not pair it
// with the stale empty list, which tells the caller its paid-for links do not exist.
describe('a direct-links replay after the order was funded', () => {
  it("does not answer FUNDED with the earlier answer's empty link list", async ({ gatewayWith }) => {
    const poor = await gatewayWith({ sandbox: { balances: { USD: 0 } } });
    const LINKS = `mutation($input: CreateDirectLinksInput!) { createDirectLinks(input: $input) {
      __typename ... on CreateCampaignPayload { funding replayed links } } }`;
    const input = { id: uniqueId('poor-links'), priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, linkCount: 2 };
    const first = await poor.gql(LINKS, { input });
    expect(first.body.data.createDirectLinks).toMatchObject({ funding: 'AWAITING_FUNDS', links: [] });
    await poor.sandbox.control.topUp('USD', 1_000_000);
    const links: string[] = (await poor.sandbox.api('GET', `/links/${input.id}`)).body.directlinks.map((l: { link: string }) => l.link);
    expect(links).toHaveLength(2);

    const replay = await poor.gql(LINKS, { input });
    const payload = replay.body.data.createDirectLinks;
    expect(payload, JSON.stringify(replay.body)).toMatchObject({ funding: 'FUNDED', replayed: true });
    expect(payload.links).not.toEqual([]);
    if (payload.links !== null) expect([...payload.links].sort()).toEqual([...links].sort());
    expect((await poor.sandbox.control.stats()).creates[input.id]).toBe(1);
  });
});

// The pre-create lookup can fail; the create then goes ahead and may be answered from an earlier request,
// byte for byte: the order as it stood then. The payload must not present that old state as current.
describe('a replayed create whose pre-create lookup failed', () => {
  it('does not report AWAITING_FUNDS for an order that has been funded since', async ({ gatewayWith }) => {
    const poor = await gatewayWith({ sandbox: { balances: { USD: 0 } }, env: { UPSTREAM_RETRY_ATTEMPTS: '1' } });
    const CREATE_FUNDING = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
      __typename ... on CreateCampaignPayload { funding replayed campaign { status } } } }`;
    const input = emailInput();
    const first = await poor.gql(CREATE_FUNDING, { input });
    expect(first.body.data.createCampaign).toMatchObject({ funding: 'AWAITING_FUNDS' });
    await poor.sandbox.control.topUp('USD', 1_000_000);

    // The one lookup before the create fails; nothing else does.
    await poor.sandbox.control.fault({ route: 'GET /campaign/:id', status: 503, rate: 1, count: 1 });
    const replay = await poor.gql(CREATE_FUNDING, { input });
    const payload = replay.body.data.createCampaign;
    expect(payload, JSON.stringify(replay.body)).toMatchObject({ __typename: 'CreateCampaignPayload', funding: 'FUNDED' });
    expect(payload.replayed).not.toBe(false);
    expect(payload.campaign.status).not.toBe('AWAITING_FUNDS');
    expect((await poor.sandbox.control.stats()).creates[input.id]).toBe(1);
  });
});
