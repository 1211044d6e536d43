import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrandPickerDocument, CampaignDashboardDocument, FundsWidgetDocument } from '../../operations/__generated__/graphql.js';
import { createEmailOrder } from '../support/fixtures.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

// The example client operations, run as typed documents: what a frontend team would ship.

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('example operations', () => {
  it('CampaignDashboard', async () => {
    const a = await createEmailOrder(gw.sandbox, { recipients: 2 });
    const b = await createEmailOrder(gw.sandbox, { recipients: 1, brandCodes: ['sbxbooksus'], priceInCents: 2000 });
    const { body } = await gw.gql(CampaignDashboardDocument, { refs: [a.id, b.uuid] });
    expect(body.errors).toBeUndefined();
    const [first, second] = body.data!.campaigns;
    expect(first?.gifts?.totalCount).toBe(2);
    expect(second?.priceInCents).toBe(2000);
    expect(second?.gifts?.edges[0]?.node.brand?.name).toBe('Sandbox Books');
  });

  it('BrandPicker', async () => {
    const { body } = await gw.gql(BrandPickerDocument, { filter: { region: 'USA', minPriceInCents: 1000 }, first: 3 });
    expect(body.errors).toBeUndefined();
    expect(body.data!.brands!.edges.length).toBeGreaterThan(0);
    expect(body.data!.brands!.edges.length).toBeLessThanOrEqual(3);
    expect(body.data!.regions!.map((r) => r.name)).toContain('USA');
  });

  it('FundsWidget', async () => {
    const { body } = await gw.gql(FundsWidgetDocument, {});
    expect(body.errors).toBeUndefined();
    expect(body.data!.funds!.balances.length).toBeGreaterThanOrEqual(3);
  });
});
