import { describe, expect } from 'vitest';
import { createDirectLinkOrder, createEmailOrder, uniqueId } from '../support/fixtures.js';
import { it } from '../support/test.js';

describe('account, funds, regions', () => {
  it('viewer answers the upstream ping', async ({ gateway }) => {
    const { body } = await gateway.gql('{ viewer { username displayName } }');
    expect(body.errors).toBeUndefined();
    expect(body.data.viewer.username).toEqual(expect.any(String));
    expect(body.data.viewer.displayName.length).toBeGreaterThan(0);
  });

  it('funds lists one balance per currency and picks one by code', async ({ gateway }) => {
    const { body } = await gateway.gql(
      '{ funds { balances { currency availableInCents pendingInCents reservedInCents } usd: balance(currency: "usd") { currency availableInCents } none: balance(currency: "XYZ") { currency } } }',
    );
    expect(body.errors).toBeUndefined();
    const currencies = body.data.funds.balances.map((b: any) => b.currency);
    expect(currencies).toEqual(expect.arrayContaining(['USD', 'CAD', 'AUD']));
    const usd = body.data.funds.balances.find((b: any) => b.currency === 'USD');
    expect(body.data.funds.usd).toEqual({ currency: 'USD', availableInCents: usd.availableInCents });
    expect(body.data.funds.none).toBeNull();
  });

  it('regions come from the upstream list', async ({ gateway }) => {
    const { body } = await gateway.gql('{ regions { id name } }');
    expect(body.data.regions).toEqual(
      expect.arrayContaining([
        { id: 1, name: 'Canada' },
        { id: 2, name: 'USA' },
      ]),
    );
  });
});

describe('brands', () => {
  it('pages through the catalog with cursors and a total', async ({ gateway }) => {
    const first = await gateway.gql(
      '{ brands(first: 5) { totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { brandCode } } } }',
    );
    const conn = first.body.data.brands;
    expect(conn.totalCount).toBeGreaterThanOrEqual(12);
    expect(conn.edges).toHaveLength(5);
    expect(conn.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

    const second = await gateway.gql(
      'query($after: String) { brands(first: 5, after: $after) { pageInfo { hasPreviousPage } edges { node { brandCode } } } }',
      {
        after: conn.pageInfo.endCursor,
      },
    );
    const firstCodes = conn.edges.map((e: any) => e.node.brandCode);
    const secondCodes = second.body.data.brands.edges.map((e: any) => e.node.brandCode);
    expect(secondCodes).toHaveLength(5);
    expect(secondCodes.filter((c: string) => firstCodes.includes(c))).toEqual([]);
    expect(second.body.data.brands.pageInfo.hasPreviousPage).toBe(true);
  });

  it('filters by region name or id, currency and embeddable', async ({ gateway }) => {
    const byName = await gateway.gql(
      '{ brands(filter: { region: "canada" }, first: 50) { edges { node { brandCode currency regions { name } } } } }',
    );
    const byId = await gateway.gql('{ brands(filter: { region: "1" }, first: 50) { edges { node { brandCode } } } }');
    const canadian = byName.body.data.brands.edges.map((e: any) => e.node);
    expect(canadian.length).toBeGreaterThan(0);
    for (const brand of canadian) {
      expect(brand.currency).toBe('CAD');
      expect(brand.regions.map((r: any) => r.name)).toContain('Canada');
    }
    expect(byId.body.data.brands.edges.map((e: any) => e.node.brandCode)).toEqual(canadian.map((b: any) => b.brandCode));

    const embeddable = await gateway.gql(
      '{ brands(filter: { embeddable: true, currency: "usd" }, first: 50) { edges { node { embeddable currency } } } }',
    );
    const nodes = embeddable.body.data.brands.edges.map((e: any) => e.node);
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((n: any) => n.embeddable && n.currency === 'USD')).toBe(true);
  });

  it('an unknown region is a clear input error, not an upstream call', async ({ gateway }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql('{ brands(filter: { region: "Atlantis" }) { totalCount } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0]?.message).toMatch(/Atlantis.*Known regions: .*USA/);
    expect((await gateway.upstreamDelta())['GET /brands'] ?? 0).toBe(0);
  });

  it('brand(code) shows fixed and ranged price options; unknown codes are null', async ({ gateway }) => {
    const { body } = await gateway.gql(`{
      fixed: brand(code: "sbxcoffeeus") { name currency embeddable priceOptions { __typename ... on FixedPrices { valuesInCents } } }
      ranged: brand(code: "sbxbooksus") { priceOptions { __typename ... on PriceRange { minInCents maxInCents } } regions { name } }
      expiring: brand(code: "sbxcinemaus") { expiryPeriod }
      missing: brand(code: "no-such-brand") { name }
    }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.fixed).toEqual({
      name: 'Sandbox Coffee House',
      currency: 'USD',
      embeddable: true,
      priceOptions: { __typename: 'FixedPrices', valuesInCents: [500, 1000, 2500] },
    });
    expect(body.data.ranged.priceOptions).toEqual({ __typename: 'PriceRange', minInCents: 500, maxInCents: 50000 });
    expect(body.data.ranged.regions.map((r: any) => r.name).sort()).toEqual(['Global', 'USA']);
    expect(body.data.expiring.expiryPeriod).toBe('12 months');
    expect(body.data.missing).toBeNull();
  });

  it('brand details are cached across requests', async ({ gateway }) => {
    await gateway.gql('{ brand(code: "sbxsurfau") { name } }');
    await gateway.upstreamDelta();
    const { body } = await gateway.gql('{ brand(code: "sbxsurfau") { name currency } }');
    expect(body.data.brand).toEqual({ name: 'Sandbox Surf Co.', currency: 'AUD' });
    expect((await gateway.upstreamDelta())['GET /brands/:code'] ?? 0).toBe(0);
  });

  it('rejects a page size above the cap with a clear error', async ({ gateway }) => {
    const { body } = await gateway.gql('{ brands(first: 101) { totalCount } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0]?.message).toMatch(/between 0 and 100/);
  });

  it('rejects a cursor it did not issue', async ({ gateway }) => {
    const { body } = await gateway.gql('{ brands(after: "garbage") { totalCount } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('campaigns and gifts', () => {
  let order: { id: string; uuid: string };

  it.beforeAll(async ({ sandbox }) => {
    order = await createEmailOrder(sandbox, { recipients: 3, brandCodes: ['sbxcoffeeus'], priceInCents: 1000 });
  });

  it('reads a campaign by caller id and by uuid, with fees, contacts, brands and enums', async ({ gateway }) => {
    const query = `query($ref: ID!) { campaign(ref: $ref) {
      id uuid status rawStatus deliveryType rawDeliveryType priceInCents currency brandCodes
      brands { brandCode name }
      contacts { email firstName addedSuccessfully }
      contactsSuccessCount
      fees { totalInCents costEntries { feeType amountInCents numberOfGifts currency } }
    } }`;
    const byId = await gateway.gql(query, { ref: order.id });
    const byUuid = await gateway.gql(query, { ref: order.uuid });
    expect(byId.body.errors).toBeUndefined();
    const campaign = byId.body.data.campaign;
    expect(byUuid.body.data.campaign).toEqual(campaign);
    expect(campaign).toMatchObject({
      id: order.id,
      uuid: order.uuid,
      deliveryType: 'EMAIL',
      priceInCents: 1000,
      currency: 'USD',
      brandCodes: ['sbxcoffeeus'],
      brands: [{ brandCode: 'sbxcoffeeus', name: 'Sandbox Coffee House' }],
      contactsSuccessCount: 3,
    });
    expect(campaign.rawDeliveryType).toMatch(/_EMAIL$/);
    expect(['CREATING', 'CREATED']).toContain(campaign.status);
    expect(campaign.contacts).toHaveLength(3);
    expect(campaign.fees.totalInCents).toBe(3000);
    expect(campaign.fees.costEntries).toContainEqual({ feeType: 'PREFUND_GIFT_COST', amountInCents: 3000, numberOfGifts: 3, currency: 'USD' });
  });

  it('unknown refs read as null, alone and inside campaigns(refs)', async ({ gateway }) => {
    const { body } = await gateway.gql('query($refs: [ID!]!) { campaign(ref: "nope-404") { id } campaigns(refs: $refs) { id } }', {
      refs: [order.id, 'nope-404', order.uuid],
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.campaign).toBeNull();
    expect(body.data.campaigns).toEqual([{ id: order.id }, null, { id: order.id }]);
  });

  it("pages a campaign's gifts with cursors and resolves each gift's campaign and brand", async ({ gateway }) => {
    const first = await gateway.gql(
      `query($ref: ID!) { campaign(ref: $ref) { gifts(first: 2) {
      totalCount pageInfo { hasNextPage endCursor }
      edges { node { uuid status deliveryStatus rawStatus priceInCents recipientEmail redeliveryCount createdDate campaign { id } brand { name } } }
    } } }`,
      { ref: order.id },
    );
    expect(first.body.errors).toBeUndefined();
    const gifts = first.body.data.campaign.gifts;
    expect(gifts.totalCount).toBe(3);
    expect(gifts.edges).toHaveLength(2);
    expect(gifts.pageInfo.hasNextPage).toBe(true);
    for (const { node } of gifts.edges) {
      expect(node).toMatchObject({
        status: 'SENT_AND_REDEEMABLE',
        priceInCents: 1000,
        redeliveryCount: 0,
        campaign: { id: order.id },
        brand: { name: 'Sandbox Coffee House' },
      });
      expect(['UNSENT', 'DELIVERED']).toContain(node.deliveryStatus);
      expect(node.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const rest = await gateway.gql(
      'query($ref: ID!, $after: String) { campaign(ref: $ref) { gifts(first: 2, after: $after) { pageInfo { hasNextPage } edges { node { uuid } } } } }',
      {
        ref: order.id,
        after: gifts.pageInfo.endCursor,
      },
    );
    const restGifts = rest.body.data.campaign.gifts;
    expect(restGifts.edges).toHaveLength(1);
    expect(restGifts.pageInfo.hasNextPage).toBe(false);
    expect(gifts.edges.map((e: any) => e.node.uuid)).not.toContain(restGifts.edges[0].node.uuid);
  });

  it('reads one gift by uuid, null when unknown, and filters the account-wide list', async ({ gateway, sandbox }) => {
    await sandbox.control.advanceClock(1000);
    const list = await gateway.gql('query($c: ID) { gifts(filter: { campaignId: $c }) { totalCount edges { node { uuid recipientEmail } } } }', {
      c: order.id,
    });
    expect(list.body.data.gifts.totalCount).toBe(3);
    const target = list.body.data.gifts.edges[0].node;
    await sandbox.control.redeem(target.uuid);

    const { body } = await gateway.gql(
      `query($uuid: ID!, $c: ID) {
      gift(uuid: $uuid) { uuid status redeemedDate }
      missing: gift(uuid: "00000000-0000-0000-0000-000000000000") { uuid }
      redeemed: gifts(filter: { campaignId: $c, status: REDEEMED }) { totalCount edges { node { uuid } } }
      open: gifts(filter: { campaignId: $c, status: SENT_AND_REDEEMABLE }) { totalCount }
    }`,
      { uuid: target.uuid, c: order.id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.gift.status).toBe('REDEEMED');
    expect(body.data.gift.redeemedDate).toEqual(expect.any(String));
    expect(body.data.missing).toBeNull();
    expect(body.data.redeemed).toEqual({ totalCount: 1, edges: [{ node: { uuid: target.uuid } }] });
    expect(body.data.open.totalCount).toBe(2);
  });

  it('validates recipient substring filters before calling upstream', async ({ gateway }) => {
    await gateway.upstreamDelta();
    const { body } = await gateway.gql('{ gifts(filter: { recipientEmail: "ab" }) { totalCount } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0]?.message).toMatch(/at least 3 characters/);
    expect((await gateway.upstreamDelta())['GET /gifts'] ?? 0).toBe(0);
  });

  it('refuses negative price and redelivery-count bounds before calling upstream (which answers them with a 422)', async ({ gateway }) => {
    await gateway.upstreamDelta();
    for (const bound of ['priceInCentsGreaterThan', 'priceInCentsLessThan', 'redeliveryCountGreaterThan', 'redeliveryCountLessThan']) {
      const { body } = await gateway.gql(`{ gifts(filter: { ${bound}: -1 }) { totalCount } }`);
      expect(body.errors?.[0]?.extensions?.code, bound).toBe('BAD_USER_INPUT');
      expect(body.errors?.[0]?.message).toContain(bound);
    }
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('first: 0 answers the totalCount and no edges; the upstream, which pages from 1, is asked for one', async ({ gateway, sandbox }) => {
    const links = await createDirectLinkOrder(sandbox, { linkCount: 3 });
    const { body } = await gateway.gql(
      `query($email: ID!, $links: ID!) {
        gifts(first: 0) { totalCount edges { cursor } pageInfo { hasNextPage endCursor } }
        brands(first: 0) { totalCount edges { cursor } }
        email: campaign(ref: $email) { gifts(first: 0) { totalCount edges { cursor } } }
        links: campaign(ref: $links) { links(first: 0) { totalCount edges { cursor } } } }`,
      { email: order.id, links: links.id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.gifts).toMatchObject({ edges: [], pageInfo: { hasNextPage: true, endCursor: null } });
    expect(body.data.gifts.totalCount).toBeGreaterThan(0);
    expect(body.data.brands.edges).toEqual([]);
    expect(body.data.brands.totalCount).toBeGreaterThan(0);
    expect(body.data.email.gifts).toEqual({ totalCount: 3, edges: [] });
    expect(body.data.links.links).toEqual({ totalCount: 3, edges: [] });
  });

  it('sorts gifts as asked', async ({ gateway }) => {
    const { body } = await gateway.gql(
      'query($c: ID) { gifts(filter: { campaignId: $c, sort: { field: RECIPIENT_EMAIL, direction: ASC } }) { edges { node { recipientEmail } } } }',
      { c: order.id },
    );
    const emails = body.data.gifts.edges.map((e: any) => e.node.recipientEmail);
    expect(emails).toEqual([...emails].sort());
  });

  it('lists the links of a direct-link order and none for an email order', async ({ gateway, sandbox }) => {
    const links = await createDirectLinkOrder(sandbox, { linkCount: 3 });
    const { body } = await gateway.gql(
      'query($a: ID!, $b: ID!) { a: campaign(ref: $a) { deliveryType linkCount links(first: 2) { totalCount generating edges { node { number url } } } } b: campaign(ref: $b) { links { totalCount } } }',
      {
        a: links.id,
        b: order.id,
      },
    );
    expect(body.errors).toBeUndefined();
    const conn = body.data.a.links;
    expect(body.data.a.deliveryType).toBe('DIRECT_LINK');
    expect(conn.totalCount).toBe(3);
    expect(conn.generating).toBe(false);
    expect(conn.edges.map((e: any) => e.node.url)).toEqual(links.links.slice(0, 2));
    expect(body.data.b.links.totalCount).toBe(0);
  });
});

describe('node(id)', () => {
  it('refetches campaigns, gifts and brands by global id', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { id: uniqueId('node'), recipients: 1 });
    const ids = await gateway.gql(
      'query($ref: ID!) { campaign(ref: $ref) { nodeId gifts(first: 1) { edges { node { nodeId uuid } } } } brand(code: "sbxbooksus") { nodeId } }',
      { ref: order.id },
    );
    const campaignId = ids.body.data.campaign.nodeId;
    const gift = ids.body.data.campaign.gifts.edges[0].node;
    const { body } = await gateway.gql(
      `query($c: ID!, $g: ID!, $b: ID!) {
      c: node(id: $c) { __typename ... on Campaign { id } }
      g: node(id: $g) { __typename ... on Gift { uuid } }
      b: node(id: $b) { __typename ... on Brand { brandCode } }
    }`,
      { c: campaignId, g: gift.nodeId, b: ids.body.data.brand.nodeId },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      c: { __typename: 'Campaign', id: order.id },
      g: { __typename: 'Gift', uuid: gift.uuid },
      b: { __typename: 'Brand', brandCode: 'sbxbooksus' },
    });
  });
});
