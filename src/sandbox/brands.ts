// Read-only catalog routes: GET /brands (filters and paging, no prices in the list), GET /brands/{code} (the
// detail with price options) and GET /regions.
import { BRANDS, brandDetailView, brandOffersWithin, brandSummaryView, findBrand, REGIONS, regionView } from './catalog.js';
import type { Handler } from './context.js';
import { invalidParameter, SandboxError } from './errors.js';
import { info } from './info.js';
import { Query } from './validate.js';

const MAX_PRICE = Number.MAX_SAFE_INTEGER;

export const listBrands: Handler = ({ search }) => {
  const q = new Query(search);
  const limit = q.int('limit', { min: 1, max: 100 }, 20);
  const offset = q.int('offset', { min: 0, max: MAX_PRICE }, 0);
  const region = q.int('region', { min: 0, max: MAX_PRICE });
  const min = q.int('min_price_in_cents', { min: 0, max: MAX_PRICE });
  const max = q.int('max_price_in_cents', { min: 0, max: MAX_PRICE });
  const currency = q.string('currencyisocode');
  if (currency !== undefined && !/^[A-Za-z]{3}$/.test(currency)) {
    throw invalidParameter('currencyisocode: expected a 3-letter code');
  }
  const text = q.string('search')?.trim().toLowerCase();
  const embeddable = q.bool('embeddable');

  const matching = BRANDS.filter(
    (b) =>
      (region === undefined || b.regionIds.includes(region)) &&
      (currency === undefined || b.currency === currency.toUpperCase()) &&
      (min === undefined && max === undefined ? true : brandOffersWithin(b, min ?? 0, max ?? MAX_PRICE)) &&
      (!text || b.name.toLowerCase().includes(text) || b.code.includes(text)) &&
      (embeddable === undefined || b.embeddable === embeddable),
  ).sort((a, b) => a.name.localeCompare(b.name));
  const page = matching.slice(offset, offset + limit);
  return {
    body: {
      brands: page.map(brandSummaryView),
      number_of_results: page.length,
      limit,
      offset,
      total_count: matching.length,
      info: info('INFO_BRANDS_RETRIEVED', 'Brands', 'Brands retrieved.'),
      status: 200,
    },
  };
};

export const getBrand: Handler = ({ params }) => {
  const brand = findBrand(params.code!);
  if (!brand) {
    throw new SandboxError(422, 'ERROR_BRANDS_NO_SUCH_BRAND', 'No such brand', `No brand with code ${params.code}.`);
  }
  return { body: { brand: brandDetailView(brand), info: info('INFO_BRAND_RETRIEVED', 'Brand', 'Brand retrieved.'), status: 200 } };
};

export const listRegions: Handler = () => ({
  body: { regions: REGIONS.map(regionView), info: info('INFO_RETRIEVED_REGIONS', 'Regions', 'Regions retrieved.'), status: 200 },
});
