import DataLoader from 'dataloader';
import stableStringify from 'safe-stable-stringify';
import type { CatalogCache } from './catalog/catalog-cache.js';
import { matchBrandCode } from './catalog/brand-codes.js';
import type {
  Account,
  Brand,
  BrandQuery,
  BrandSummary,
  Campaign,
  Funds,
  Gift,
  GiftQuery,
  LinkPage,
  Page,
  Region,
  UpstreamClient,
} from './upstream/types.js';

// One set per request. Resolvers ask these, never the client: they dedupe repeated asks within a request
// (aliases, the same campaign reached twice) and prime each other so that, for example, `gift.campaign`
// costs nothing once the campaign was read. The upstream has no batch endpoints, so a "batch" is the same
// GETs sent concurrently.

export interface LinkPageKey {
  id: string;
  limit: number;
  offset: number;
}

export interface Loaders {
  /** By caller id or uuid; each load primes the other key. */
  campaign: DataLoader<string, Campaign | null>;
  gift: DataLoader<string, Gift | null>;
  /** Gift pages by their full query (filters and paging); every gift in a page primes `gift`. */
  giftPage: DataLoader<GiftQuery, Page<Gift>, string>;
  brand: DataLoader<string, Brand | null>;
  brandPage: DataLoader<BrandQuery, Page<BrandSummary>, string>;
  linkPage: DataLoader<LinkPageKey, LinkPage | null, string>;
  regions(): Promise<Region[]>;
  /** Known brand codes close to one the catalog does not have (typos), best first. */
  brandSuggestions(code: string): Promise<string[]>;
  funds(): Promise<Funds>;
  account(): Promise<Account>;
  /** Drop everything this request read: after a mutation the payload must show fresh state. */
  forgetAll(): void;
}

export interface LoaderHooks {
  /** Called with every batch a loader sends: its name (the Loaders key) and how many keys it holds. */
  onBatch?: (loader: string, size: number) => void;
}

/** A key that is equal for equal queries whatever their property order (at any depth); Dates by instant. */
export function stableKey(value: object): string {
  return stableStringify(value);
}

/** Runs one upstream call per key concurrently; a failing key fails alone, not the whole batch. */
function eachKey<K, V>(load: (key: K) => Promise<V>) {
  return async (keys: readonly K[]): Promise<(V | Error)[]> => {
    const settled = await Promise.allSettled(keys.map(load));
    return settled.map((s) => (s.status === 'fulfilled' ? s.value : toError(s.reason)));
  };
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** A value computed at most once per request, and computed again after `forget`. */
function once<T>(load: () => Promise<T>) {
  let pending: Promise<T> | null = null;
  return {
    get: () => (pending ??= load()),
    forget: () => {
      pending = null;
    },
  };
}

export function createLoaders(client: UpstreamClient, catalog: CatalogCache, signal?: AbortSignal, hooks: LoaderHooks = {}): Loaders {
  const opts = { signal };
  /** eachKey, reporting each batch's size to hooks.onBatch. */
  const batch = <K, V>(name: keyof Loaders, load: (key: K) => Promise<V>) => {
    const run = eachKey(load);
    return (keys: readonly K[]) => {
      hooks.onBatch?.(name, keys.length);
      return run(keys);
    };
  };

  // Each loader is made on first use: a subscription's context lives as long as the subscription and most
  // never touch more than one or two of them, so eager loaders were most of an idle subscriber's heap.
  let gift: Loaders['gift'] | undefined;
  let campaign: Loaders['campaign'] | undefined;
  let giftPage: Loaders['giftPage'] | undefined;
  let brand: Loaders['brand'] | undefined;
  let brandPage: Loaders['brandPage'] | undefined;
  let linkPage: Loaders['linkPage'] | undefined;

  const giftLoader = () => (gift ??= new DataLoader(batch('gift', (uuid: string) => client.getGift(uuid, opts))));

  const campaignLoader = (): Loaders['campaign'] =>
    (campaign ??= new DataLoader(
      batch('campaign', async (ref: string) => {
        const found = await client.getCampaign(ref, opts);
        if (found) {
          // Whichever key was asked, the other one now costs nothing.
          campaignLoader().prime(found.id, found).prime(found.uuid, found);
        }
        return found;
      }),
    ));

  // Not batched: a batch settles when its slowest page is back, so the rewards of ten orders would all wait
  // for the tenth page. Each page resolves on its own; the loader still dedupes equal queries.
  const giftPageLoader = () =>
    (giftPage ??= new DataLoader(
      batch('giftPage', async (query: GiftQuery) => {
        const page = await client.listGifts(query, opts);
        const gifts = giftLoader();
        for (const item of page.items) gifts.prime(item.uuid, item);
        return page;
      }),
      { cacheKeyFn: stableKey, batch: false },
    ));

  const brandLoader = () => (brand ??= new DataLoader(batch('brand', (code: string) => catalog.brand(code))));

  const brandPageLoader = () =>
    (brandPage ??= new DataLoader(
      batch('brandPage', (query: BrandQuery) => client.listBrands(query, opts)),
      { cacheKeyFn: stableKey },
    ));

  const linkPageLoader = () =>
    (linkPage ??= new DataLoader(
      batch('linkPage', (key: LinkPageKey) => client.getLinks(key.id, { limit: key.limit, offset: key.offset }, opts)),
      { cacheKeyFn: stableKey },
    ));

  const regions = once(() => catalog.regions());
  const funds = once(() => client.getFunds(opts));
  const account = once(() => client.ping(opts));

  return {
    get campaign() {
      return campaignLoader();
    },
    get gift() {
      return giftLoader();
    },
    get giftPage() {
      return giftPageLoader();
    },
    get brand() {
      return brandLoader();
    },
    get brandPage() {
      return brandPageLoader();
    },
    get linkPage() {
      return linkPageLoader();
    },
    regions: regions.get,
    brandSuggestions: async (code) => matchBrandCode(code, await catalog.brandCodes()).suggestions,
    funds: funds.get,
    account: account.get,
    forgetAll() {
      for (const loader of [campaign, gift, giftPage, brandPage, linkPage]) loader?.clearAll();
      funds.forget();
      account.forget();
    },
  };
}
