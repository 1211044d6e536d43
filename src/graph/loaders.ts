import DataLoader from 'dataloader';
import stableStringify from 'safe-stable-stringify';
import type { CatalogCache } from '../catalog/catalog-cache.js';
import { matchBrandCode } from '../catalog/brand-codes.js';
import { inSpan } from '../telemetry/spans.js';
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
} from '../upstream/types.js';

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
  /**
   * A brand by code as `brand` loads it, but the brand itself once this request has it, and one shared promise
   * until then: every gift of a page asks for one of the same few brands, and each cache hit of a DataLoader
   * is a new promise settled through three microtasks (200 per nested read).
   */
  brandOf(code: string): Brand | null | Promise<Brand | null>;
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

/**
 * Runs one upstream call per key concurrently; a failing key fails alone, not the whole batch. Most batches
 * hold one key (a page loader never batches): those skip allSettled and its promise per key.
 */
function eachKey<K, V>(load: (key: K) => Promise<V>) {
  return (keys: readonly K[]): Promise<(V | Error)[]> => {
    if (keys.length === 1)
      return load(keys[0]!).then(
        (value) => [value],
        (reason: unknown) => [toError(reason)],
      );
    return Promise.allSettled(keys.map(load)).then((settled) => settled.map((s) => (s.status === 'fulfilled' ? s.value : toError(s.reason))));
  };
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

// A class rather than closures: a subscription keeps its request's loaders for its whole life and most never
// use one, so what an unused set costs is what every idle subscriber costs. An instance is one object; each
// DataLoader and each once-per-request read is made on first use.
class RequestLoaders implements Loaders {
  #campaign: Loaders['campaign'] | undefined;
  #gift: Loaders['gift'] | undefined;
  #giftPage: Loaders['giftPage'] | undefined;
  #brand: Loaders['brand'] | undefined;
  #brandPage: Loaders['brandPage'] | undefined;
  #linkPage: Loaders['linkPage'] | undefined;
  #regions: Promise<Region[]> | null = null;
  #funds: Promise<Funds> | null = null;
  #account: Promise<Account> | null = null;
  readonly #opts: { signal?: AbortSignal };

  constructor(
    private readonly client: UpstreamClient,
    private readonly catalog: CatalogCache,
    signal: AbortSignal | undefined,
    private readonly hooks: LoaderHooks,
  ) {
    this.#opts = { signal };
  }

  /**
   * eachKey, reporting each batch's size to hooks.onBatch, in a span of its own when the operation is traced
   * and the batch holds more than one key: a one-key batch's span would only wrap its one client span (the
   * histogram still counts it), and a span is about 20 µs of CPU (bench/RESULTS.md 0m).
   */
  #batch<K, V>(name: keyof Loaders, load: (key: K) => Promise<V>) {
    const run = eachKey(load);
    return (keys: readonly K[]) => {
      this.hooks.onBatch?.(name, keys.length);
      if (keys.length === 1) return run(keys);
      return inSpan(
        `loader ${name}`,
        () => ({ 'reward.loader.name': name, 'reward.loader.batch_size': keys.length }),
        () => run(keys),
      );
    };
  }

  // A gift a page listed is answered from the page, without a request. Pages are not primed into the gift
  // loader (a promise and a cache entry for each of the 200 gifts of a nested read, which nearly never asks
  // for one by uuid), nor indexed by uuid (a map of every listed gift, built for the same rare ask): the
  // loader searches the pages, in the order they came back, so the first page to list a gift wins, as a
  // prime would. Made on first use, as the loaders are (a subscription's context lives as long as it does).
  #listed: Gift[][] | null = null;

  #listedGift(uuid: string): Gift | undefined {
    for (const items of this.#listed ?? []) {
      const gift = items.find((item) => item.uuid === uuid);
      if (gift) return gift;
    }
    return undefined;
  }

  get gift(): Loaders['gift'] {
    if (this.#gift) return this.#gift;
    const fetch = this.#batch('gift', (uuid: string) => this.client.getGift(uuid, this.#opts));
    return (this.#gift = new DataLoader(async (uuids: readonly string[]) => {
      const listed = uuids.map((uuid) => this.#listedGift(uuid));
      const unlisted = uuids.filter((_, i) => !listed[i]);
      const fetched = unlisted.length > 0 ? await fetch(unlisted) : [];
      return uuids.map((uuid, i) => listed[i] ?? fetched[unlisted.indexOf(uuid)]!);
    }));
  }

  get campaign(): Loaders['campaign'] {
    return (this.#campaign ??= new DataLoader(
      this.#batch('campaign', async (ref: string) => {
        const found = await this.client.getCampaign(ref, this.#opts);
        if (found) {
          // Whichever key was asked, the other one now costs nothing.
          this.campaign.prime(found.id, found).prime(found.uuid, found);
        }
        return found;
      }),
    ));
  }

  // Not batched: a batch settles when its slowest page is back, so the rewards of ten orders would all wait
  // for the tenth page. Each page resolves on its own; the loader still dedupes equal queries.
  get giftPage(): Loaders['giftPage'] {
    return (this.#giftPage ??= new DataLoader(
      this.#batch('giftPage', async (query: GiftQuery) => {
        const page = await this.client.listGifts(query, this.#opts);
        (this.#listed ??= []).push(page.items);
        return page;
      }),
      { cacheKeyFn: stableKey, batch: false },
    ));
  }

  get brand(): Loaders['brand'] {
    return (this.#brand ??= new DataLoader(this.#batch('brand', (code: string) => this.catalog.brand(code, this.client))));
  }

  /** Each code's brand once read, its one promise until then (a failure stays, as in the DataLoader's cache). */
  #brands: Map<string, Brand | null | Promise<Brand | null>> | null = null;

  brandOf(code: string): Brand | null | Promise<Brand | null> {
    const brands = (this.#brands ??= new Map());
    const known = brands.get(code);
    if (known !== undefined) return known;
    const reading = this.brand.load(code).then((brand) => {
      brands.set(code, brand);
      return brand;
    });
    brands.set(code, reading);
    return reading;
  }

  get brandPage(): Loaders['brandPage'] {
    return (this.#brandPage ??= new DataLoader(
      this.#batch('brandPage', (query: BrandQuery) => this.client.listBrands(query, this.#opts)),
      { cacheKeyFn: stableKey },
    ));
  }

  get linkPage(): Loaders['linkPage'] {
    return (this.#linkPage ??= new DataLoader(
      this.#batch('linkPage', (key: LinkPageKey) => this.client.getLinks(key.id, { limit: key.limit, offset: key.offset }, this.#opts)),
      { cacheKeyFn: stableKey },
    ));
  }

  regions(): Promise<Region[]> {
    return (this.#regions ??= this.catalog.regions(this.client));
  }

  async brandSuggestions(code: string): Promise<string[]> {
    return matchBrandCode(code, await this.catalog.brandCodes(this.client)).suggestions;
  }

  funds(): Promise<Funds> {
    return (this.#funds ??= this.client.getFunds(this.#opts));
  }

  account(): Promise<Account> {
    return (this.#account ??= this.client.ping(this.#opts));
  }

  forgetAll(): void {
    for (const loader of [this.#campaign, this.#gift, this.#giftPage, this.#brandPage, this.#linkPage]) loader?.clearAll();
    this.#listed = null;
    this.#funds = null;
    this.#account = null;
  }
}

export function createLoaders(client: UpstreamClient, catalog: CatalogCache, signal?: AbortSignal, hooks: LoaderHooks = {}): Loaders {
  return new RequestLoaders(client, catalog, signal, hooks);
}
