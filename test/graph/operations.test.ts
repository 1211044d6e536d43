import { describe, expect } from 'vitest';
import { BrandPickerDocument, CampaignDashboardDocument, FundsWidgetDocument } from '../../operations/__generated__/graphql.js';
import { createEmailOrder } from '../support/fixtures.js';
import { it } from '../support/test.js';

// The example client operations, run as typed documents: what a frontend team would ship.

describe('example operations', () => {
  it('CampaignDashboard', async ({ gateway, sandbox }) => {
    const a = await createEmailOrder(sandbox, { recipients: 2 });
    const b = await createEmailOrder(sandbox, { recipients: 1, brandCodes: ['sbxbooksus'], priceInCents: 2000 });
    const { body } = await gateway.gql(CampaignDashboardDocument, { refs: [a.id, b.uuid] });
    expect(body.errors).toBeUndefined();
    const [first, second] = body.data!.campaigns;
    expect(first?.gifts?.totalCount).toBe(2);
    expect(second?.priceInCents).toBe(2000);
    expect(second?.gifts?.edges[0]?.node.brand?.name).toBe('Sandbox Books');
  });

  it('BrandPicker', async ({ gateway }) => {
    const { body } = await gateway.gql(BrandPickerDocument, { filter: { region: 'USA', minPriceInCents: 1000 }, first: 3 });
    expect(body.errors).toBeUndefined();
    expect(body.data!.brands!.edges.length).toBeGreaterThan(0);
    expect(body.data!.brands!.edges.length).toBeLessThanOrEqual(3);
    expect(body.data!.regions!.map((r) => r.name)).toContain('USA');
  });

  it('FundsWidget', async ({ gateway }) => {
    const { body } = await gateway.gql(FundsWidgetDocument, {});
    expect(body.errors).toBeUndefined();
    expect(body.data!.funds!.balances.length).toBeGreaterThanOrEqual(3);
  });
});
