// GET /brands, GET /brands/{code}, GET /regions.
import { describe, expect } from 'vitest';
import { it } from '../support/test.js';
import { type TestSandbox } from '../support/sandbox.js';
import { expectError } from './helpers.js';

const codes = async (sandbox: TestSandbox, query: string) => {
  const res = await sandbox.api('GET', `/brands?limit=100&${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.brands.map((b: any) => b.brand_code).sort();
};

describe('GET /brands', () => {
  it('lists brands by name without prices, 20 per page by default, with paging fields', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/brands');
    expect(res.body).toMatchObject({ number_of_results: 13, limit: 20, offset: 0, total_count: 13, info: { code: 'INFO_BRANDS_RETRIEVED' } });
    const names = res.body.brands.map((b: any) => b.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
    for (const b of res.body.brands) {
      expect(Object.keys(b).sort()).toEqual(['brand_code', 'disclaimer', 'image_url', 'name']);
      expect(b.disclaimer).toContain('sandbox reward for testing only');
      expect(b.image_url).toMatch(/^https:\/\//);
    }
    const page = await sandbox.api('GET', '/brands?limit=5&offset=10');
    expect(page.body).toMatchObject({ number_of_results: 3, limit: 5, offset: 10, total_count: 13 });
    expect(page.body.brands.map((b: any) => b.brand_code)).toEqual(res.body.brands.slice(10).map((b: any) => b.brand_code));
  });

  it('filters by numeric region id', async ({ sandbox }) => {
    expect(await codes(sandbox, 'region=1')).toEqual(['sbxbooksca', 'sbxcoffeeca', 'sbxoutdoorsca']);
    expect(await codes(sandbox, 'region=3')).toEqual(['sbxbooksus', 'sbxgamesglobal', 'sbxmusicglobal']);
    expect(await codes(sandbox, 'region=4')).toEqual(['sbxgroceryau', 'sbxprepaidau', 'sbxsurfau']);
    expect(await codes(sandbox, 'region=99')).toEqual([]);
  });

  it('filters by currency, case-insensitively', async ({ sandbox }) => {
    expect(await codes(sandbox, 'currencyisocode=AUD')).toEqual(['sbxgroceryau', 'sbxprepaidau', 'sbxsurfau']);
    expect(await codes(sandbox, 'currencyisocode=cad')).toEqual(['sbxbooksca', 'sbxcoffeeca', 'sbxoutdoorsca']);
    expect(await codes(sandbox, 'currencyisocode=EUR')).toEqual([]);
  });

  it('filters by price: brands offering some face value within the bounds', async ({ sandbox }) => {
    // Fixed 500/1000/2500 brands and ranges reaching down to 500 or below 700.
    expect(await codes(sandbox, 'min_price_in_cents=600&max_price_in_cents=900')).toEqual(['sbxbooksca', 'sbxbooksus', 'sbxgamesglobal']);
    expect(await codes(sandbox, 'min_price_in_cents=60000')).toEqual(['sbxprepaidus']);
    expect(await codes(sandbox, 'max_price_in_cents=500')).toEqual(['sbxbooksca', 'sbxbooksus', 'sbxcoffeeca', 'sbxcoffeeus', 'sbxgamesglobal']);
  });

  it('filters by search text in the name or code, and by embeddable', async ({ sandbox }) => {
    expect(await codes(sandbox, 'search=coffee')).toEqual(['sbxcoffeeca', 'sbxcoffeeus']);
    expect(await codes(sandbox, 'search=PREPAID%20VISA')).toEqual(['sbxprepaidus']);
    expect(await codes(sandbox, 'embeddable=true')).toEqual(['sbxbooksus', 'sbxcoffeeca', 'sbxcoffeeus', 'sbxgamesglobal', 'sbxgroceryau']);
    expect((await codes(sandbox, 'embeddable=false')).length).toBe(8);
    expect(await codes(sandbox, 'embeddable=true&region=2&currencyisocode=USD&max_price_in_cents=500')).toEqual(['sbxbooksus', 'sbxcoffeeus']);
  });

  it.for(['region=usa', 'limit=0', 'limit=101', 'offset=-3', 'min_price_in_cents=abc', 'embeddable=yes', 'currencyisocode=DOLLARS'])(
    'refuses %s with 422',
    async (query, { sandbox }) => {
      expectError(await sandbox.api('GET', `/brands?${query}`), 422, 'ERROR_INVALID_PARAMETERS');
    },
  );
});

describe('GET /brands/{code}', () => {
  it('answers a fixed-price brand with allowed prices and its expiry_period', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/brands/sbxcinemaus');
    expect(res.status).toBe(200);
    expect(res.body.brand).toEqual({
      brand_code: 'sbxcinemaus',
      name: 'Sandbox Cinema',
      image_url: expect.any(String),
      disclaimer: expect.stringContaining('testing only'),
      description: expect.any(String),
      regions: [2],
      fund_currencyisocode: 'USD',
      variable_price: false,
      allowed_prices_in_cents: [1000, 2500, 5000],
      embeddable: false,
      expiry_period: '12 months',
    });
  });

  it('answers a ranged brand with min and max and no expiry_period when it has none', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/brands/sbxbooksus');
    expect(res.body.brand).toMatchObject({
      variable_price: true,
      min_price_in_cents: 500,
      max_price_in_cents: 50000,
      regions: [2, 3],
      embeddable: true,
    });
    expect(res.body.brand).not.toHaveProperty('expiry_period');
    expect(res.body.brand).not.toHaveProperty('allowed_prices_in_cents');
  });

  it('refuses an unknown code with 422 ERROR_BRANDS_NO_SUCH_BRAND', async ({ sandbox }) => {
    expectError(await sandbox.api('GET', '/brands/nosuchbrand'), 422, 'ERROR_BRANDS_NO_SUCH_BRAND');
  });
});

describe('GET /regions', () => {
  it('answers the four regions with ids, names and images', async ({ sandbox }) => {
    const res = await sandbox.api('GET', '/regions');
    expect(res.body.info.code).toBe('INFO_RETRIEVED_REGIONS');
    expect(res.body.regions.map((r: any) => [r.id, r.name])).toEqual([
      [1, 'Canada'],
      [2, 'USA'],
      [3, 'Global'],
      [4, 'Australia'],
    ]);
    for (const r of res.body.regions) expect(r.image_url).toMatch(/^https:\/\//);
  });
});
