import { describe, expect } from 'vitest';
import { createDirectLinkOrder, createEmailOrder } from '../support/fixtures.js';
import { testWith } from '../support/test.js';

// Every field that needs its own upstream call fails alone: it is null, its error names its path, and the
// object above it (the order header, the reward, the brand in a list) keeps its data.

// Lifetime: the file. An order of one reward, whose campaign lists two brands.
const it = testWith({ env: { UPSTREAM_RETRY_ATTEMPTS: '2', CATALOG_CACHE_TTL_MS: '0' } }).extend('order', { scope: 'file' }, async ({ sandbox }) => {
  const order = await createEmailOrder(sandbox, { recipients: 1, brandCodes: ['sbxcoffeeus', 'sbxbooksus'] });
  const gifts = await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`);
  return { ...order, giftUuid: gifts.body.gifts[0].uuid as string };
});
// No catalog cache: each test must reach GET /brands/:code to see its fault.
it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

function errorPaths(body: { errors?: { path?: (string | number)[]; extensions?: Record<string, unknown> }[] }) {
  return (body.errors ?? []).map((e) => ({ path: e.path, code: e.extensions?.code }));
}

describe('a nested upstream failure nulls only its own field', () => {
  it('Campaign.gifts: a 503 on GET /gifts keeps the campaign header in a campaigns list', async ({ gateway, sandbox, order }) => {
    await sandbox.control.fault({ route: 'GET /gifts', status: 503, rate: 1 });
    const { body } = await gateway.gql('query($refs: [ID!]!) { campaigns(refs: $refs) { id status gifts(first: 5) { totalCount } } }', {
      refs: [order.id],
    });
    expect(body.data.campaigns).toEqual([{ id: order.id, status: expect.any(String), gifts: null }]);
    expect(errorPaths(body)).toEqual([{ path: ['campaigns', 0, 'gifts'], code: 'UPSTREAM_UNAVAILABLE' }]);
  });

  it('Campaign.brands: a failing brand read is a null entry; the order keeps its data', async ({ gateway, sandbox, order }) => {
    await sandbox.control.fault({ route: 'GET /brands/:code', status: 503, rate: 1 });
    const { body } = await gateway.gql('query($ref: ID!) { campaign(ref: $ref) { id brandCodes brands { name } } }', { ref: order.id });
    expect(body.data.campaign).toEqual({ id: order.id, brandCodes: ['sbxcoffeeus', 'sbxbooksus'], brands: [null, null] });
    expect(errorPaths(body)).toEqual(
      expect.arrayContaining([
        { path: ['campaign', 'brands', 0], code: 'UPSTREAM_UNAVAILABLE' },
        { path: ['campaign', 'brands', 1], code: 'UPSTREAM_UNAVAILABLE' },
      ]),
    );
  });

  it('Campaign.links: a 503 on GET /links/:id keeps the link order', async ({ gateway, sandbox }) => {
    const links = await createDirectLinkOrder(sandbox, { linkCount: 2 });
    await sandbox.control.fault({ route: 'GET /links/:id', status: 503, rate: 1 });
    const { body } = await gateway.gql('query($ref: ID!) { campaign(ref: $ref) { id linkCount links(first: 5) { totalCount } } }', { ref: links.id });
    expect(body.data.campaign).toEqual({ id: links.id, linkCount: 2, links: null });
    expect(errorPaths(body)).toEqual([{ path: ['campaign', 'links'], code: 'UPSTREAM_UNAVAILABLE' }]);
  });

  it('brand details under a list: a failing detail read nulls that field, not the brands list', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /brands/:code', status: 503, rate: 1 });
    const { body } = await gateway.gql('{ brands(first: 2) { totalCount edges { node { brandCode name embeddable regions { name } } } } }');
    expect(body.data.brands.totalCount).toBeGreaterThan(2);
    expect(body.data.brands.edges).toHaveLength(2);
    for (const [i, edge] of body.data.brands.edges.entries()) {
      expect(edge.node).toEqual({ brandCode: expect.any(String), name: expect.any(String), embeddable: null, regions: null });
      expect(errorPaths(body)).toEqual(
        expect.arrayContaining([
          { path: ['brands', 'edges', i, 'node', 'embeddable'], code: 'UPSTREAM_UNAVAILABLE' },
          { path: ['brands', 'edges', i, 'node', 'regions'], code: 'UPSTREAM_UNAVAILABLE' },
        ]),
      );
    }
  });

  it('Gift.campaign: a 503 on GET /campaign/:id keeps the reward', async ({ gateway, sandbox, order }) => {
    await sandbox.control.fault({ route: 'GET /campaign/:id', status: 503, rate: 1 });
    const { body } = await gateway.gql('query($uuid: ID!) { gift(uuid: $uuid) { uuid status campaign { id } } }', { uuid: order.giftUuid });
    expect(body.data.gift).toEqual({ uuid: order.giftUuid, status: expect.any(String), campaign: null });
    expect(errorPaths(body)).toEqual([{ path: ['gift', 'campaign'], code: 'UPSTREAM_UNAVAILABLE' }]);
  });

  it('Gift.brand: a 503 on GET /brands/:code keeps the reward', async ({ gateway, sandbox, order }) => {
    await sandbox.control.redeem(order.giftUuid, 'sbxbooksus');
    await sandbox.control.fault({ route: 'GET /brands/:code', status: 503, rate: 1 });
    const { body } = await gateway.gql('query($uuid: ID!) { gift(uuid: $uuid) { uuid brandCode brand { name } } }', { uuid: order.giftUuid });
    expect(body.data.gift).toEqual({ uuid: order.giftUuid, brandCode: 'sbxbooksus', brand: null });
    expect(errorPaths(body)).toEqual([{ path: ['gift', 'brand'], code: 'UPSTREAM_UNAVAILABLE' }]);
  });
});
