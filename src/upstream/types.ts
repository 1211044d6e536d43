// The normalised shapes the upstream client returns. camelCase, Pacific-time strings already turned into real
// instants, both spellings of a value folded into one. Enum-like fields keep the raw upstream string: the
// schema maps them to GraphQL enums with an UNKNOWN member, so a new upstream value never breaks a read.

import type { UpstreamScope } from './scope.js';

export interface Info {
  code: string;
  name: string | null;
  message: string | null;
}

export interface Account {
  username: string;
  displayName: string;
}

export interface CostEntry {
  feeType: string;
  percentage: number | null;
  amountInCents: number;
  currency: string | null;
  taxType: string | null;
  taxInCents: number;
  numberOfGifts: number | null;
  feePerGiftInCents: number | null;
}

export interface Fees {
  costEntries: CostEntry[];
  subtotalInCents: number;
  taxInCents: number;
  taxType: string | null;
  totalInCents: number;
}

export interface ContactResult {
  email: string;
  firstName: string | null;
  lastName: string | null;
  message: string | null;
  addedSuccessfully: boolean | null;
}

export interface Campaign {
  id: string;
  uuid: string;
  /** Raw upstream status: API_CREATING, AWAITING_FUNDS, CAMPAIGN_CREATED, or anything newer. */
  status: string;
  /** Raw upstream delivery type: *_EMAIL, DIRECT_LINK, SHORTLINK, EMBEDDED. */
  deliveryType: string;
  companyName: string | null;
  message: string | null;
  subject: string | null;
  suppressDefaultGreeting: boolean | null;
  giftTemplate: string | null;
  contacts: ContactResult[] | null;
  contactsSuccessCount: number | null;
  contactsFailureCount: number | null;
  priceInCents: number;
  brandCodes: string[];
  region: string | null;
  fees: Fees | null;
  /** YYYY-MM-DD, end of that day Pacific time. */
  expiry: string | null;
  linkCount: number | null;
}

/** How an accepted order stands with the money behind it. */
export type Funding = 'FUNDED' | 'AWAITING_FUNDS' | 'FUNDS_PENDING';

export interface CreatedCampaign {
  info: Info;
  funding: Funding;
  campaign: Campaign;
  /** Direct-link orders only: one claimable URL per link. */
  directLinks: string[] | null;
  /** True when the answer was recovered by looking the order up after an ambiguous failure. */
  recovered: boolean;
}

export interface Gift {
  uuid: string;
  campaignUuid: string;
  campaignId: string | null;
  /** Raw claim status; GIVER_CANCELED is folded into the production spelling GIVER_CANCELLED. */
  status: string;
  /** Raw delivery status. */
  deliveryStatus: string;
  priceInCents: number;
  brandCode: string | null;
  recipientEmail: string | null;
  recipientName: string | null;
  redeliveryCount: number;
  createdDate: Date | null;
  deliveryDate: Date | null;
  redeemedDate: Date | null;
  expiry: string | null;
  managementDashboardLink: string | null;
  shortlink: string | null;
}

export interface Page<T> {
  items: T[];
  numberOfResults: number;
  limit: number;
  offset: number;
  totalCount: number;
}

export type GiftSortField = 'campaign_id' | 'price_in_cents' | 'recipient_name' | 'recipient_email' | 'delivery_status' | 'status';

export interface GiftQuery {
  uuid?: string;
  campaignUuid?: string;
  campaignId?: string;
  status?: string;
  deliveryStatus?: string;
  recipientEmail?: string;
  recipientName?: string;
  priceInCentsGreaterThan?: number;
  priceInCentsLessThan?: number;
  createdDateGreaterThan?: Date;
  createdDateLessThan?: Date;
  deliveryDateGreaterThan?: Date;
  deliveryDateLessThan?: Date;
  redeemedDateGreaterThan?: Date;
  redeemedDateLessThan?: Date;
  redeliveryCountGreaterThan?: number;
  redeliveryCountLessThan?: number;
  limit?: number;
  offset?: number;
  sort?: GiftSortField;
  order?: 'asc' | 'desc';
}

export interface BrandSummary {
  brandCode: string;
  name: string;
  imageUrl: string | null;
  disclaimer: string | null;
}

export interface Brand extends BrandSummary {
  description: string | null;
  regionIds: number[];
  currency: string | null;
  variablePrice: boolean;
  minPriceInCents: number | null;
  maxPriceInCents: number | null;
  /** Fixed-price brands: the face values allowed. */
  allowedPricesInCents: number[] | null;
  embeddable: boolean;
  expiryPeriod: string | null;
}

export interface BrandQuery {
  regionId?: number;
  minPriceInCents?: number;
  maxPriceInCents?: number;
  currency?: string;
  search?: string;
  embeddable?: boolean;
  limit?: number;
  offset?: number;
}

export interface Region {
  id: number;
  name: string;
  imageUrl: string | null;
}

export interface CurrencyBalance {
  currency: string;
  availableInCents: number;
  pendingInCents: number;
  reservedInCents: number;
}

export interface Funds {
  balances: CurrencyBalance[];
}

export interface Link {
  number: number;
  url: string;
}

/** The upstream's own limit: GET /links/{id} answers at most this many links per page. */
export const LINKS_PAGE_MAX = 50;

export interface LinkPage {
  /** False while the upstream is still generating the links (INFO_LINKS_GENERATION_IN_PROGRESS). */
  ready: boolean;
  kind: 'SHORTLINK' | 'DIRECT_LINK' | null;
  links: Link[];
  limit: number;
  offset: number;
  totalCount: number;
}

export interface EmbeddedReward {
  campaign: {
    id: string;
    uuid: string;
    brandCode: string;
    priceInCents: number;
    fees: Fees | null;
  };
  giftLink: string;
  recovered: boolean;
}

export interface ContactInput {
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface CreateCampaignRequest {
  id: string;
  priceInCents: number;
  /** Omitted (or EMAIL) for email delivery. */
  deliveryType?: 'EMAIL' | 'SHORTLINK';
  contacts?: ContactInput[];
  brandCodes?: string[];
  /** Region name for a full-catalog order, e.g. USA. */
  region?: string;
  message?: string;
  subject?: string;
  giftTemplate?: string;
  linkCount?: number;
  /** YYYY-MM-DD */
  expiry?: string;
}

export interface CreateDirectLinksRequest {
  id: string;
  priceInCents: number;
  brandCodes?: string[];
  region?: string;
  linkCount: number;
  expiry?: string;
}

export interface CreateEmbeddedRequest {
  id: string;
  brandCode: string;
  priceInCents: number;
}

export interface AddFundsRequest {
  id: string;
  currency: string;
  amountInCents: number;
}

export interface CallOptions {
  /** The caller's abort signal (e.g. the GraphQL request's). */
  signal?: AbortSignal;
}

export interface UpstreamClient {
  /**
   * The same client (pool, bulkhead, settings) with every call made in this view's scope with `fields` added
   * or replaced. The client itself works in the gateway's scope.
   */
  inScope(fields: Partial<UpstreamScope>): UpstreamClient;
  /**
   * Which upstream and account this client reads: a hash of the base URL and of the token, never either, so a
   * cache can key answers by it (src/cache/).
   */
  readonly identity: string;
  /** The upstream budget and circuit breaker, shared by every view of the client: state, events, the cluster's ceiling. */
  readonly shield: Shield;
  ping(opts?: CallOptions): Promise<Account>;
  createCampaign(req: CreateCampaignRequest, opts?: CallOptions): Promise<CreatedCampaign>;
  /** Caller id or uuid; null when the upstream does not know it. */
  getCampaign(ref: string, opts?: CallOptions): Promise<Campaign | null>;
  createDirectLinks(req: CreateDirectLinksRequest, opts?: CallOptions): Promise<CreatedCampaign>;
  /** Caller id of a link order; null when unknown. */
  getLinks(id: string, page?: { limit?: number; offset?: number }, opts?: CallOptions): Promise<LinkPage | null>;
  createEmbeddedReward(req: CreateEmbeddedRequest, opts?: CallOptions): Promise<EmbeddedReward>;
  listGifts(query: GiftQuery, opts?: CallOptions): Promise<Page<Gift>>;
  getGift(uuid: string, opts?: CallOptions): Promise<Gift | null>;
  /** Sends another email. Never retried automatically. */
  resendGift(uuid: string, opts?: CallOptions): Promise<Gift>;
  cancelGift(uuid: string, opts?: CallOptions): Promise<Gift>;
  listBrands(query: BrandQuery, opts?: CallOptions): Promise<Page<BrandSummary>>;
  getBrand(code: string, opts?: CallOptions): Promise<Brand | null>;
  listRegions(opts?: CallOptions): Promise<Region[]>;
  getFunds(opts?: CallOptions): Promise<Funds>;
  addFunds(req: AddFundsRequest, opts?: CallOptions): Promise<Funds>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}

// The upstream budget and circuit breaker as the rest of the gateway sees them (shield.ts builds them).

/** Who an attempt is for, in the order the budget serves them when tokens are short. */
export type Priority = 'write' | 'poll' | 'read';

export type CircuitStateName = 'closed' | 'open' | 'half_open';

/** The fixed ceiling's answer: a token, or how long until the next one might be there. */
export interface CeilingAnswer {
  granted: boolean;
  waitMs: number;
}

/** Where the fixed ceiling's tokens come from: this process, or Redis for the cluster. */
export interface Ceiling {
  readonly limits: { rate: number; burst: number };
  take(reserve: number): CeilingAnswer | Promise<CeilingAnswer>;
  /** Gives back a token taken for an attempt that was not sent. */
  refund(): void | Promise<void>;
  /** Tokens left now, for metrics (null when only Redis knows). */
  tokens(): number | null;
}

export type ShieldEvent =
  /** An attempt got its token after waiting (0 when at once; reported only when the budget is in force). */
  | { type: 'token'; priority: Priority; waitedMs: number }
  /** A read refused for want of a token (UPSTREAM_BUSY), or a write or poll whose wait ran out. */
  | { type: 'busy'; priority: Priority }
  /** The upstream said "too many" and the adaptive limit was cut. */
  | { type: 'cut'; limit: number }
  | { type: 'circuit'; from: CircuitStateName; to: CircuitStateName };

export interface ShieldState {
  circuit: CircuitStateName;
  /** Requests a second the adaptive limit allows; null while none was learnt. */
  adaptiveLimit: number | null;
  /** The fixed ceiling, null when unset. */
  ceiling: { perSecond: number; burst: number } | null;
  /** Tokens left in this process's ceiling bucket (null in cluster mode or without a ceiling). */
  ceilingTokens: number | null;
  waiting: Record<Priority, number>;
}

export interface Shield {
  state(): ShieldState;
  listen(listener: (event: ShieldEvent) => void): void;
  /** Cluster mode: the ceiling counted for every replica, in place of this process's bucket. */
  shareCeiling(ceiling: Ceiling): void;
}
