import { GraphQLError, responsePathAsArray } from 'graphql';
import { ref } from '../orders/order-rules.js';
import type { GatewayContext } from '../graph/context.js';
import { gatewayError, gatewayHint } from '../errors/gateway-error.js';
import type { Brand, BrandQuery, BrandSummary } from '../upstream/types.js';
import { builder } from './builder.js';
import { offsetConnection } from './offset-connection.js';
import { MONEY } from './money.js';
import { pageToConnection, pageWindow, upstreamWindow } from './paging.js';
import { BrandRef, RegionRef } from './refs.js';

interface FixedPrices {
  kind: 'fixed';
  valuesInCents: number[];
}
interface PriceRange {
  kind: 'range';
  minInCents: number;
  maxInCents: number;
}

const FixedPricesRef = builder.objectRef<FixedPrices>('FixedPrices').implement({
  description: 'The brand sells these face values only.',
  fields: (t) => ({ valuesInCents: t.expose('valuesInCents', { type: [MONEY] }) }),
});

const PriceRangeRef = builder.objectRef<PriceRange>('PriceRange').implement({
  description: 'The brand sells any face value in this range (inclusive).',
  fields: (t) => ({
    minInCents: t.expose('minInCents', { type: MONEY }),
    maxInCents: t.expose('maxInCents', { type: MONEY }),
  }),
});

const PriceOptionsRef = builder.unionType('PriceOptions', {
  types: [FixedPricesRef, PriceRangeRef],
  resolveType: (value) => (value.kind === 'fixed' ? FixedPricesRef : PriceRangeRef),
});

function priceOptions(brand: Brand): FixedPrices | PriceRange | null {
  if (brand.variablePrice && brand.minPriceInCents != null && brand.maxPriceInCents != null) {
    return { kind: 'range', minInCents: brand.minPriceInCents, maxInCents: brand.maxPriceInCents };
  }
  if (brand.allowedPricesInCents) return { kind: 'fixed', valuesInCents: brand.allowedPricesInCents };
  return null;
}

/** The full record: the parent itself when it already is one, else the (cached) detail lookup. */
async function details(brand: BrandSummary, ctx: GatewayContext): Promise<Brand> {
  if ('regionIds' in brand) return brand as Brand;
  const full = await ctx.loaders.brand.load(brand.brandCode);
  if (!full) throw new GraphQLError(`Brand ${brand.brandCode} has no details upstream.`);
  return full;
}

builder.node(BrandRef, {
  description: 'A gift card or prepaid card brand recipients can choose.',
  id: { resolve: (brand) => brand.brandCode },
  loadOne: (code, ctx) => ctx.loaders.brand.load(code),
  fields: (t) => ({
    brandCode: t.exposeString('brandCode'),
    name: t.exposeString('name'),
    imageUrl: t.exposeString('imageUrl', { nullable: true }),
    disclaimer: t.exposeString('disclaimer', { nullable: true, description: 'Legal text (HTML).' }),
    description: t.string({
      nullable: true,
      resolve: async (brand, _args, ctx) => (await details(brand, ctx)).description,
    }),
    expiryPeriod: t.string({
      nullable: true,
      description: 'How long a reward of this brand stays claimable, as the upstream words it; null when unlimited.',
      resolve: async (brand, _args, ctx) => (await details(brand, ctx)).expiryPeriod,
    }),
    currency: t.string({
      nullable: true,
      description: 'Currency the brand is funded in (USD, CAD, AUD).',
      resolve: async (brand, _args, ctx) => (await details(brand, ctx)).currency,
    }),
    // Detail fields need the brand's own upstream read (a list gives only the summary): each is nullable so a
    // failing read nulls the field, not the brand or the list it is in.
    embeddable: t.boolean({
      nullable: true,
      description: 'Whether the brand can be sent as an embedded reward.',
      resolve: async (brand, _args, ctx) => (await details(brand, ctx)).embeddable,
    }),
    priceOptions: t.field({
      type: PriceOptionsRef,
      nullable: true,
      description: 'Allowed face values: a fixed list or a range.',
      resolve: async (brand, _args, ctx) => priceOptions(await details(brand, ctx)),
    }),
    regions: t.field({
      type: [RegionRef],
      nullable: true,
      resolve: async (brand, _args, ctx) => {
        const [full, regions] = await Promise.all([details(brand, ctx), ctx.loaders.regions()]);
        return regions.filter((region) => full.regionIds.includes(region.id));
      },
    }),
  }),
});

const BrandConnection = offsetConnection(BrandRef, 'BrandConnection');

const BrandFilter = builder.inputType('BrandFilter', {
  fields: (t) => ({
    region: t.string({ description: 'Region name (e.g. "USA", case-insensitive) or numeric id.' }),
    currency: t.string({ validate: { regex: [/^[A-Za-z]{3}$/, { message: 'must be a 3-letter currency code' }] } }),
    minPriceInCents: t.field({ type: MONEY, validate: { min: 0 } }),
    maxPriceInCents: t.field({ type: MONEY, validate: { min: 0 } }),
    search: t.string({ validate: { maxLength: 200 } }),
    embeddable: t.boolean(),
  }),
});

async function regionId(ref: string, ctx: GatewayContext): Promise<number> {
  if (/^\d+$/.test(ref)) return Number(ref);
  const regions = await ctx.loaders.regions();
  const match = regions.find((r) => r.name.toLowerCase() === ref.trim().toLowerCase());
  if (!match) {
    throw gatewayError('BAD_USER_INPUT', { reason: 'unknown-region', region: ref, known: regions.map((r) => r.name) });
  }
  return match.id;
}

builder.queryFields((t) => ({
  brand: t.field({
    type: BrandRef,
    nullable: true,
    authScopes: { 'rewards:read': true },
    description:
      'The brand with this code, matched ignoring case; null when the catalog has none. A near miss adds the codes it ' +
      "probably meant to the response's `extensions.hints` (code BAD_USER_INPUT), beside the null.",
    args: { code: t.arg.string({ required: true, validate: { schema: ref } }) },
    resolve: async (_root, { code }, ctx, info) => {
      const brand = await ctx.loaders.brand.load(code);
      if (brand) return brand;
      // The same suggestions, in the same words, as a create's ValidationError (orders/reward-choice.ts).
      const suggestions = await ctx.loaders.brandSuggestions(code).catch(() => []);
      if (suggestions.length) {
        ctx.hints.push(gatewayHint('BAD_USER_INPUT', { reason: 'unknown-brand', brandCode: code, suggestions }, responsePathAsArray(info.path)));
      }
      return null;
    },
  }),
  brands: t.field({
    type: BrandConnection,
    nullable: true,
    authScopes: { 'rewards:read': true },
    args: {
      filter: t.arg({ type: BrandFilter }),
      first: t.arg.int(),
      after: t.arg.string(),
    },
    resolve: async (_root, { filter, first, after }, ctx) => {
      const window = pageWindow({ first, after });
      const query: BrandQuery = {
        regionId: filter?.region != null ? await regionId(filter.region, ctx) : undefined,
        currency: filter?.currency?.toUpperCase() ?? undefined,
        minPriceInCents: filter?.minPriceInCents ?? undefined,
        maxPriceInCents: filter?.maxPriceInCents ?? undefined,
        search: filter?.search ?? undefined,
        embeddable: filter?.embeddable ?? undefined,
        ...upstreamWindow(window),
      };
      return pageToConnection(await ctx.loaders.brandPage.load(query), window);
    },
  }),
}));
