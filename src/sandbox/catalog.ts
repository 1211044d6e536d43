// The sandbox's fixed brand catalog and regions. Brands are fictional (no real merchant's name in test data)
// but shaped like production's: fixed face values or a range, one funding currency, some embeddable, some
// with an expiry_period text. Every brand of a region is funded in that region's currency, so a full-catalog
// order always has exactly one currency.

export type Currency = 'USD' | 'CAD' | 'AUD';
export const CURRENCIES: readonly Currency[] = ['USD', 'CAD', 'AUD'];

export interface Region {
  id: number;
  name: string;
  currency: Currency;
}

export const REGIONS: readonly Region[] = [
  { id: 1, name: 'Canada', currency: 'CAD' },
  { id: 2, name: 'USA', currency: 'USD' },
  { id: 3, name: 'Global', currency: 'USD' },
  { id: 4, name: 'Australia', currency: 'AUD' },
];

export type PriceOptions = { kind: 'fixed'; allowed: readonly number[] } | { kind: 'range'; min: number; max: number };

export interface CatalogBrand {
  code: string;
  name: string;
  description: string;
  currency: Currency;
  regionIds: readonly number[];
  prices: PriceOptions;
  embeddable: boolean;
  expiryPeriod?: string;
}

const fixed = (...allowed: number[]): PriceOptions => ({ kind: 'fixed', allowed });
const range = (min: number, max: number): PriceOptions => ({ kind: 'range', min, max });

export const BRANDS: readonly CatalogBrand[] = [
  {
    code: 'sbxcoffeeus',
    name: 'Sandbox Coffee House',
    description: 'Coffee and pastries.',
    currency: 'USD',
    regionIds: [2],
    prices: fixed(500, 1000, 2500),
    embeddable: true,
  },
  {
    code: 'sbxbooksus',
    name: 'Sandbox Books',
    description: 'Books and e-books.',
    currency: 'USD',
    regionIds: [2, 3],
    prices: range(500, 50000),
    embeddable: true,
  },
  {
    code: 'sbxcinemaus',
    name: 'Sandbox Cinema',
    description: 'Movie tickets and snacks.',
    currency: 'USD',
    regionIds: [2],
    prices: fixed(1000, 2500, 5000),
    embeddable: false,
    expiryPeriod: '12 months',
  },
  {
    code: 'sbxgroceryus',
    name: 'Sandbox Grocer',
    description: 'Groceries.',
    currency: 'USD',
    regionIds: [2],
    prices: range(1000, 20000),
    embeddable: false,
  },
  {
    code: 'sbxprepaidus',
    name: 'Sandbox Prepaid Visa',
    description: 'A prepaid card accepted widely.',
    currency: 'USD',
    regionIds: [2],
    prices: range(1000, 100000),
    embeddable: false,
    expiryPeriod: '6 months',
  },
  {
    code: 'sbxgamesglobal',
    name: 'Sandbox Game Store',
    description: 'Games and in-game credit.',
    currency: 'USD',
    regionIds: [3],
    prices: range(500, 10000),
    embeddable: true,
  },
  {
    code: 'sbxmusicglobal',
    name: 'Sandbox Music',
    description: 'Music streaming credit.',
    currency: 'USD',
    regionIds: [3],
    prices: fixed(1000, 1500, 3000),
    embeddable: false,
  },
  {
    code: 'sbxcoffeeca',
    name: 'Sandbox Coffee House Canada',
    description: 'Coffee and pastries.',
    currency: 'CAD',
    regionIds: [1],
    prices: fixed(500, 1000, 2500),
    embeddable: true,
  },
  {
    code: 'sbxoutdoorsca',
    name: 'Sandbox Outdoors',
    description: 'Outdoor gear.',
    currency: 'CAD',
    regionIds: [1],
    prices: range(2000, 30000),
    embeddable: false,
    expiryPeriod: '24 months',
  },
  {
    code: 'sbxbooksca',
    name: 'Sandbox Books Canada',
    description: 'Books and e-books.',
    currency: 'CAD',
    regionIds: [1],
    prices: range(500, 50000),
    embeddable: false,
  },
  {
    code: 'sbxsurfau',
    name: 'Sandbox Surf Co.',
    description: 'Surf and beach wear.',
    currency: 'AUD',
    regionIds: [4],
    prices: fixed(2000, 5000, 10000),
    embeddable: false,
    expiryPeriod: '36 months',
  },
  {
    code: 'sbxgroceryau',
    name: 'Sandbox Grocer Australia',
    description: 'Groceries.',
    currency: 'AUD',
    regionIds: [4],
    prices: range(1000, 20000),
    embeddable: true,
  },
  {
    code: 'sbxprepaidau',
    name: 'Sandbox Prepaid Mastercard',
    description: 'A prepaid card accepted widely.',
    currency: 'AUD',
    regionIds: [4],
    prices: range(1000, 50000),
    embeddable: false,
    expiryPeriod: '12 months',
  },
];

const DISCLAIMER = '<p>This is a sandbox reward for testing only. It has no cash value and cannot be redeemed.</p>';

export function findBrand(code: string): CatalogBrand | undefined {
  return BRANDS.find((b) => b.code === code);
}

export function regionByName(name: string): Region | undefined {
  return REGIONS.find((r) => r.name === name);
}

export function brandAllowsPrice(brand: CatalogBrand, priceInCents: number): boolean {
  const p = brand.prices;
  return p.kind === 'fixed' ? p.allowed.includes(priceInCents) : priceInCents >= p.min && priceInCents <= p.max;
}

/** True when the brand offers at least one face value inside [min, max]. */
export function brandOffersWithin(brand: CatalogBrand, min: number, max: number): boolean {
  const p = brand.prices;
  return p.kind === 'fixed' ? p.allowed.some((v) => v >= min && v <= max) : p.max >= min && p.min <= max;
}

export function imageUrl(kind: 'brands' | 'regions', key: string | number): string {
  return `https://img.sandbox.invalid/${kind}/${key}.png`;
}

export function brandSummaryView(brand: CatalogBrand): Record<string, unknown> {
  return { brand_code: brand.code, name: brand.name, image_url: imageUrl('brands', brand.code), disclaimer: DISCLAIMER };
}

export function brandDetailView(brand: CatalogBrand): Record<string, unknown> {
  const p = brand.prices;
  return {
    ...brandSummaryView(brand),
    description: brand.description,
    regions: [...brand.regionIds],
    fund_currencyisocode: brand.currency,
    variable_price: p.kind === 'range',
    ...(p.kind === 'range' ? { min_price_in_cents: p.min, max_price_in_cents: p.max } : { allowed_prices_in_cents: [...p.allowed] }),
    embeddable: brand.embeddable,
    ...(brand.expiryPeriod ? { expiry_period: brand.expiryPeriod } : {}),
  };
}

export function regionView(region: Region): Record<string, unknown> {
  return { id: region.id, name: region.name, image_url: imageUrl('regions', region.id) };
}
