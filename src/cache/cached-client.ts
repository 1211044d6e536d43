import { LRUCache } from 'lru-cache';
import stableStringify from 'safe-stable-stringify';
import { isUpstreamError } from '../upstream/errors.js';
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
// rest (ping, links, the catalogue, which catalog/ caches) goes straight through. A write drops what it may
// have changed whenever it may have taken effect: answered, or failed with its outcome unknown (an answer
// lost after the upstream acted is a change all the same).
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
  /** A live query's round: the groups it read (what to re-resolve it on) and the orders among them (what to watch). */
  reads?: Reads;
}

export interface Reads {
  groups: Set<string>;
  /** Uuids of the orders read (an order or its rewards' pages). */
  orders: Set<string>;
  /** Whether it read the brand catalogue or the regions, which no poller watches (catalog/catalog-cache.ts). */
  catalogue: boolean;
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
  /**
   * What a top-up makes wrong: the balances, and the unfiltered reward pages, since it releases orders waiting
   * for funds (oldest first) and their rewards appear. The released orders' own entries were never stored:
   * an order waiting for funds is TRANSITIONAL and its empty reward pages are not kept.
   */
  fundsChanged(): string[] {
    return [this.funds(), this.pages({})];
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

/** A reward's order: what a change of the reward makes wrong beyond the reward itself. */
type OrderOf = Pick<Gift, 'campaignUuid' | 'campaignId'>;

/** Rewards' orders remembered per cache; bounded, like the pollers' fingerprints. */
const MAX_KNOWN_REWARDS = 100_000;
const rewardOrders = new WeakMap<ReadCache, LRUCache<string, OrderOf>>();

function rewardOrdersOf(cache: ReadCache): LRUCache<string, OrderOf> {
  let known = rewardOrders.get(cache);
  if (!known) rewardOrders.set(cache, (known = new LRUCache({ max: MAX_KNOWN_REWARDS })));
  return known;
}

/** Whether a write that failed may have taken effect upstream all the same (its answer was lost). */
function mayHaveTakenEffect(error: unknown): boolean {
  return isUpstreamError(error) && (error.outcomeUnknown || error.inFlight);
}

class CachedClient implements UpstreamClient {
  protected readonly groups: Groups;
  /**
   * The order of every reward this gateway has read (a reward never moves): a write to a reward whose answer
   * was lost has no answer to name it, yet its order's pages are as wrong as after an answered one.
   */
  readonly #orders: LRUCache<string, OrderOf>;

  constructor(
    protected readonly inner: UpstreamClient,
    protected readonly cache: ReadCache,
    private readonly freshness: Freshness,
  ) {
    this.groups = new Groups(inner.identity);
    this.#orders = rewardOrdersOf(cache);
  }

  /** Remembers the orders of rewards read or answered. */
  protected know(gifts: Gift[]): void {
    for (const { uuid, campaignUuid, campaignId } of gifts) this.#orders.set(uuid, { campaignUuid, campaignId });
  }

  /**
   * What a write to reward `uuid` may have changed: the reward, its order's pages, the unfiltered pages and the
   * balances. Without an answer its order is the one remembered, or, when the write may have taken effect and
   * the reward was never read here, the one a read of the reward names (failing which, only the rest).
   */
  async #rewardChanged(uuid: string, answered: Gift | null, failure: unknown): Promise<string[]> {
    if (answered) this.know([answered]);
    let order: OrderOf | null = answered ?? this.#orders.get(uuid) ?? null;
    if (!order && mayHaveTakenEffect(failure)) order = await this.inner.getGift(uuid).catch(() => null);
    return this.groups.giftChanged({ uuid, ...order });
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
    this.freshness.reads?.groups.add(group);
    const answer = await this.cache.read({ group, field, fetch, fresh: this.freshness.fresh, cacheable });
    if (answer.stale) this.freshness.stale = true;
    return answer.value;
  }

  /**
   * Runs a write, then drops what it changed, before answering: whether it answered or failed, as a failure
   * may have taken effect (`changed` gets the answer, or null and the failure).
   */
  async #write<T>(run: () => Promise<T>, changed: (result: T | null, failure: unknown) => string[] | Promise<string[]>): Promise<T> {
    let result: T | null = null;
    let failure: unknown = null;
    try {
      result = await run();
      return stamp(result, Date.now());
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      await this.cache.invalidate(await changed(result, failure), 'write');
    }
  }

  ping(opts?: CallOptions) {
    return this.inner.ping(opts);
  }

  async getCampaign(ref: string, opts?: CallOptions) {
    const found = await this.#read(
      this.groups.campaign(ref),
      'v',
      () => this.inner.getCampaign(ref, opts),
      (found: Campaign | null) => !found || !TRANSITIONAL.has(found.status),
    );
    if (found) this.freshness.reads?.orders.add(found.uuid);
    return found;
  }

  async getGift(uuid: string, opts?: CallOptions) {
    const found = await this.#read(this.groups.gift(uuid), 'v', () => this.inner.getGift(uuid, opts));
    if (found) this.know([found]);
    return found;
  }

  // An order's empty list is an order not funded or not created yet: its rewards are about to appear.
  async listGifts(query: GiftQuery, opts?: CallOptions) {
    const byOrder = Boolean(query.campaignUuid || query.campaignId);
    const page = await this.#read(
      this.groups.pages(query),
      stableStringify(query),
      () => this.inner.listGifts(query, opts),
      (found: Page<Gift>) => !byOrder || found.totalCount > 0,
    );
    this.know(page.items);
    if (query.campaignUuid) this.freshness.reads?.orders.add(query.campaignUuid);
    return page;
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
      (gift, failure) => this.#rewardChanged(uuid, gift, failure),
    );
  }

  cancelGift(uuid: string, opts?: CallOptions) {
    return this.#write(
      () => this.inner.cancelGift(uuid, opts),
      (gift, failure) => this.#rewardChanged(uuid, gift, failure),
    );
  }

  addFunds(req: AddFundsRequest, opts?: CallOptions) {
    return this.#write(
      () => this.inner.addFunds(req, opts),
      () => this.groups.fundsChanged(),
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

/** What a poll found changed, for dropFound. */
export interface Found {
  gifts: Gift[];
  campaigns: Campaign[];
}

/**
 * Drops what changes a poll found make wrong, on every replica. observingClient drops what its own reads see
 * change since its own last read; a replica that has just taken an order over from another has no last read of
 * its own, only the snapshot the other left, and what its first poll finds against that snapshot is dropped here
 * (live/campaign-feed.ts), or live queries would be resolved again from entries the change made wrong.
 */
export function dropFound(client: Pick<UpstreamClient, 'identity'>, cache: ReadCache, found: Found): Promise<void> {
  const groups = new Groups(client.identity);
  return cache.invalidate(
    [...found.gifts.flatMap((gift) => groups.giftChanged(gift)), ...found.campaigns.flatMap((c) => groups.campaignChanged(c.id, c.uuid))],
    'poller',
  );
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
    this.know(gifts);
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
