import stableStringify from 'safe-stable-stringify';
import type {
  AddFundsRequest,
  CallOptions,
  Campaign,
  CreateCampaignRequest,
  CreateDirectLinksRequest,
  CreateEmbeddedRequest,
  Funds,
  Gift,
  GiftQuery,
  Page,
  UpstreamClient,
} from '../upstream/types.js';
import type { UpstreamScope } from '../upstream/scope.js';
import { stamp } from './observed.js';
import type { ReadCache } from './read-cache.js';

// The upstream client as operations see it with the cache on: orders, rewards, reward pages and balances are
// read through the ReadCache; every write drops what it changed (on every replica, before it answers); the
// rest (ping, links, the catalogue, which catalog/ caches) goes straight through.
//
// Groups, under the client's identity (a hash of the upstream's URL and token): `campaign:<id or uuid>`,
// `gift:<uuid>`, `gifts:c:<order uuid>` / `gifts:i:<order id>` / `gifts:all` (reward pages filtered by order or
// not) and `funds`.

/** What one operation asks of the cache and learns from it. */
export interface Freshness {
  /** Read past the entries (Cache-Control: no-cache, mutations). */
  fresh: boolean;
  /** Set when some answer of the operation was stale (stale-if-error): the response says so. */
  stale: boolean;
}

/** Orders in these states change without a write of ours being the cause we could see: never stored. */
const TRANSITIONAL = new Set(['API_CREATING', 'AWAITING_FUNDS']);

class Groups {
  constructor(private readonly ns: string) {}
  campaign = (ref: string) => `${this.ns}:campaign:${ref}`;
  gift = (uuid: string) => `${this.ns}:gift:${uuid}`;
  funds = () => `${this.ns}:funds`;
  pages(query: GiftQuery): string {
    if (query.campaignUuid) return `${this.ns}:gifts:c:${query.campaignUuid}`;
    if (query.campaignId) return `${this.ns}:gifts:i:${query.campaignId}`;
    return `${this.ns}:gifts:all`;
  }
  /** What a change of a reward makes wrong: the reward, the pages that may list it, the balances. */
  giftChanged(gift: { uuid: string; campaignUuid?: string | null; campaignId?: string | null }): string[] {
    return [
      this.gift(gift.uuid),
      ...(gift.campaignUuid ? [this.pages({ campaignUuid: gift.campaignUuid })] : []),
      ...(gift.campaignId ? [this.pages({ campaignId: gift.campaignId })] : []),
      this.pages({}),
      this.funds(),
    ];
  }
  /** What a change of an order makes wrong: the order under both its refs, its rewards' pages, the balances. */
  campaignChanged(id: string | null, uuid: string | null): string[] {
    return [
      ...(id ? [this.campaign(id), this.pages({ campaignId: id })] : []),
      ...(uuid ? [this.campaign(uuid), this.pages({ campaignUuid: uuid })] : []),
      this.pages({}),
      this.funds(),
    ];
  }
}

class CachedClient implements UpstreamClient {
  protected readonly groups: Groups;

  constructor(
    protected readonly inner: UpstreamClient,
    protected readonly cache: ReadCache,
    private readonly freshness: Freshness,
  ) {
    this.groups = new Groups(inner.identity);
  }

  get identity() {
    return this.inner.identity;
  }

  get shield() {
    return this.inner.shield;
  }

  inScope(fields: Partial<UpstreamScope>): UpstreamClient {
    return new CachedClient(this.inner.inScope(fields), this.cache, this.freshness);
  }

  async #read<T>(group: string, field: string, fetch: () => Promise<T>, cacheable?: (value: T) => boolean): Promise<T> {
    const answer = await this.cache.read({ group, field, fetch, fresh: this.freshness.fresh, cacheable });
    if (answer.stale) this.freshness.stale = true;
    return answer.value;
  }

  /** Runs a write, then drops what it changed (whether it answered or failed: a failure may have taken effect). */
  async #write<T>(run: () => Promise<T>, changed: (result: T | null) => string[]): Promise<T> {
    let result: T | null = null;
    try {
      result = await run();
      return stamp(result, Date.now());
    } finally {
      await this.cache.invalidate(changed(result), 'write');
    }
  }

  ping(opts?: CallOptions) {
    return this.inner.ping(opts);
  }

  getCampaign(ref: string, opts?: CallOptions) {
    return this.#read(
      this.groups.campaign(ref),
      'v',
      () => this.inner.getCampaign(ref, opts),
      (found: Campaign | null) => !found || !TRANSITIONAL.has(found.status),
    );
  }

  getGift(uuid: string, opts?: CallOptions) {
    return this.#read(this.groups.gift(uuid), 'v', () => this.inner.getGift(uuid, opts));
  }

  // An order's empty list is an order not funded or not created yet: its rewards are about to appear.
  listGifts(query: GiftQuery, opts?: CallOptions) {
    const byOrder = Boolean(query.campaignUuid || query.campaignId);
    return this.#read(
      this.groups.pages(query),
      stableStringify(query),
      () => this.inner.listGifts(query, opts),
      (page: Page<Gift>) => !byOrder || page.totalCount > 0,
    );
  }

  getFunds(opts?: CallOptions) {
    return this.#read(this.groups.funds(), 'v', () => this.inner.getFunds(opts));
  }

  getLinks(id: string, page?: { limit?: number; offset?: number }, opts?: CallOptions) {
    return this.inner.getLinks(id, page, opts);
  }

  listBrands(...args: Parameters<UpstreamClient['listBrands']>) {
    return this.inner.listBrands(...args);
  }

  getBrand(code: string, opts?: CallOptions) {
    return this.inner.getBrand(code, opts);
  }

  listRegions(opts?: CallOptions) {
    return this.inner.listRegions(opts);
  }

  createCampaign(req: CreateCampaignRequest, opts?: CallOptions) {
    return this.#write(
      () => this.inner.createCampaign(req, opts),
      (created) => this.groups.campaignChanged(req.id, created?.campaign.uuid ?? null),
    );
  }

  createDirectLinks(req: CreateDirectLinksRequest, opts?: CallOptions) {
    return this.#write(
      () => this.inner.createDirectLinks(req, opts),
      (created) => this.groups.campaignChanged(req.id, created?.campaign.uuid ?? null),
    );
  }

  createEmbeddedReward(req: CreateEmbeddedRequest, opts?: CallOptions) {
    return this.#write(
      () => this.inner.createEmbeddedReward(req, opts),
      (created) => this.groups.campaignChanged(req.id, created?.campaign.uuid ?? null),
    );
  }

  resendGift(uuid: string, opts?: CallOptions) {
    return this.#write(
      () => this.inner.resendGift(uuid, opts),
      (gift) => this.groups.giftChanged(gift ?? { uuid }),
    );
  }

  cancelGift(uuid: string, opts?: CallOptions) {
    return this.#write(
      () => this.inner.cancelGift(uuid, opts),
      (gift) => this.groups.giftChanged(gift ?? { uuid }),
    );
  }

  addFunds(req: AddFundsRequest, opts?: CallOptions) {
    return this.#write(
      () => this.inner.addFunds(req, opts),
      () => [this.groups.funds()],
    );
  }

  close() {
    return this.inner.close();
  }
}

/** `client` with reads through `cache` and writes invalidating it, for one operation's `freshness`. */
export function cachedClient(client: UpstreamClient, cache: ReadCache, freshness: Freshness): UpstreamClient {
  return new CachedClient(client, cache, freshness);
}

/** Fingerprints of what a poller last saw, by object; bounded so an account's history cannot grow it. */
const MAX_OBSERVED = 100_000;

/**
 * The client the live pollers use: reads go to the upstream (a poller must see the truth, not the cache), and
 * whatever a read shows changed since the poller last read it drops the cache entries it concerns, on every
 * replica, before the poll goes on (so its events reach subscribers after the cache knows). What a poller sees
 * for the first time drops nothing: the cache's own TTL covers changes from before the poller started.
 */
export function observingClient(client: UpstreamClient, cache: ReadCache): UpstreamClient {
  return new ObservingClient(client, cache, new Map());
}

class ObservingClient extends CachedClient {
  constructor(
    inner: UpstreamClient,
    cache: ReadCache,
    private readonly seen: Map<string, string>,
  ) {
    super(inner, cache, { fresh: true, stale: false });
  }

  override inScope(fields: Partial<UpstreamScope>): UpstreamClient {
    return new ObservingClient(this.inner.inScope(fields), this.cache, this.seen);
  }

  /** Records a fingerprint; true when it differs from the one recorded before (not when it is the first). */
  #moved(key: string, fingerprint: string): boolean {
    const before = this.seen.get(key);
    this.seen.delete(key);
    this.seen.set(key, fingerprint);
    if (this.seen.size > MAX_OBSERVED) this.seen.delete(this.seen.keys().next().value!);
    return before !== undefined && before !== fingerprint;
  }

  async #observeGifts(gifts: Gift[]): Promise<void> {
    const changed = gifts.filter((gift) => this.#moved(`gift:${gift.uuid}`, `${gift.status}|${gift.deliveryStatus}|${gift.redeliveryCount}`));
    await this.cache.invalidate(
      changed.flatMap((gift) => this.groups.giftChanged(gift)),
      'poller',
    );
  }

  override async getCampaign(ref: string, opts?: CallOptions) {
    const found = await this.inner.getCampaign(ref, opts);
    if (found && this.#moved(`campaign:${found.uuid}`, found.status)) {
      await this.cache.invalidate(this.groups.campaignChanged(found.id, found.uuid), 'poller');
    }
    return found;
  }

  override async getGift(uuid: string, opts?: CallOptions) {
    const found = await this.inner.getGift(uuid, opts);
    if (found) await this.#observeGifts([found]);
    return found;
  }

  override async listGifts(query: GiftQuery, opts?: CallOptions) {
    const page = await this.inner.listGifts(query, opts);
    await this.#observeGifts(page.items);
    return page;
  }

  override async getFunds(opts?: CallOptions): Promise<Funds> {
    const funds = await this.inner.getFunds(opts);
    if (this.#moved('funds', JSON.stringify(funds.balances))) await this.cache.invalidate([this.groups.funds()], 'poller');
    return funds;
  }
}
