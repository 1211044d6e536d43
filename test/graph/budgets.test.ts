import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { testWith } from '../support/test.js';

// The upstream cost of nested reads, counted by the sandbox itself.

const BRANDS = ['sbxcoffeeus', 'sbxbooksus', 'sbxgroceryus'];

// Lifetime: the file. Ten orders of three rewards each, referred to by id and by uuid in turn.
const it = testWith({ sandboxOptions: { latencyMs: 40 } }).extend('refs', { scope: 'file' }, async ({ sandbox }) => {
  const refs: string[] = [];
  for (let i = 0; i < 10; i += 1) {
    const order = await createEmailOrder(sandbox, { recipients: 3, brandCodes: [BRANDS[i % 3]!], priceInCents: 1000 });
    refs.push(i % 2 === 0 ? order.id : order.uuid);
  }
  await sandbox.control.advanceClock(1000);
  return refs;
});
// Latency makes concurrency observable: sequential fetching would never have 10 requests in flight.

const NESTED = `query($refs: [ID!]!) { campaigns(refs: $refs) { uuid gifts(first: 20) {
  edges { node { uuid campaign { uuid } brand { name } } } } } }`;

describe('nested read budget', () => {
  it('costs 10 campaign GETs + 10 gift-list GETs + one GET per uncached brand, fetched concurrently', async ({ gateway, sandbox, refs }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(NESTED, { refs });
    expect(body.errors).toBeUndefined();
    expect(body.data.campaigns).toHaveLength(10);
    for (const campaign of body.data.campaigns) {
      expect(campaign.gifts.edges).toHaveLength(3);
      for (const { node } of campaign.gifts.edges) {
        expect(node.campaign.uuid).toBe(campaign.uuid);
        expect(node.brand.name).toMatch(/^Sandbox/);
      }
    }
    expect(await gateway.upstreamDelta()).toEqual({
      'GET /campaign/:id': 10,
      'GET /gifts': 10,
      'GET /brands/:code': BRANDS.length,
    });
    expect((await sandbox.control.stats()).inFlightMax).toBeGreaterThanOrEqual(10);
  });

  it('costs no brand GETs once the catalog cache holds them', async ({ gateway, refs }) => {
    await gateway.upstreamDelta();
    await gateway.gql(NESTED, { refs });
    expect(await gateway.upstreamDelta()).toEqual({ 'GET /campaign/:id': 10, 'GET /gifts': 10 });
  });

  it('the same campaign under three aliases costs what one costs', async ({ gateway, refs }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(
      `query($ref: ID!) {
      a: campaign(ref: $ref) { uuid gifts(first: 5) { totalCount } }
      b: campaign(ref: $ref) { id gifts(first: 5) { totalCount } }
      c: campaign(ref: $ref) { status }
    }`,
      { ref: refs[0] },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.a.gifts.totalCount).toBe(3);
    expect(await gateway.upstreamDelta()).toEqual({ 'GET /campaign/:id': 1, 'GET /gifts': 1 });
  });

  it('a campaign read by id makes its uuid lookups free (gift.campaign across the account list)', async ({ gateway, refs }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql(`query($ref: ID!) { campaign(ref: $ref) { uuid gifts(first: 3) { edges { node { campaign { id } } } } } }`, {
      ref: refs[0],
    });
    expect(body.errors).toBeUndefined();
    expect(await gateway.upstreamDelta()).toEqual({ 'GET /campaign/:id': 1, 'GET /gifts': 1 });
  });
});
