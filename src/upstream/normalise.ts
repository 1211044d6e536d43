// Wire shapes → the gateway's types: camelCase, one spelling per value, defaults for what the upstream may
// leave out. Pure functions, so the quirks of the reward API are tested here without a server.
//
// The upstream's free text goes through `text` (the gateway's redactor) here, where it enters: names,
// messages, addresses, links, descriptions, which the upstream may have filled with a secret (an echo of its
// token, a key a caller wrote into an order). Nothing else is text: ids (the caller's own ids and the
// upstream's uuids, which the gateway uses as keys), dates, numbers, flags and the codes the gateway reads
// (statuses, currencies, brand codes) are never scanned, so no secret can corrupt them. Redacted once per
// upstream answer, the text is clean in the cache, in Redis, in subscription events and in webhooks, and a
// response is not scanned again (use-response-redaction.ts).

import type {
  Account,
  Brand,
  BrandSummary,
  Campaign,
  ContactResult,
  CostEntry,
  CurrencyBalance,
  Fees,
  Funding,
  Funds,
  Gift,
  Info,
  Link,
  LinkPage,
  Page,
} from './types.js';
import type { Redact } from '../redaction/redaction.js';
import type { WireBrand, WireBrandSummary, WireCampaign, WireContact, WireFees, WireGift, WireInfo, WirePage } from './wire.js';

/** Older and newer spellings of the same value, folded into the production spelling. */
const SPELLINGS: Record<string, string> = {
  GIVER_CANCELED: 'GIVER_CANCELLED',
  INFO_CREDNTIALS: 'INFO_CREDENTIALS',
};

function foldSpelling(value: string): string {
  return SPELLINGS[value] ?? value;
}

/** Upstream text through the redactor; null and undefined as null. */
const clean = (text: Redact, value: string | null | undefined): string | null => (value == null ? null : text(value));

export function toInfo(w: WireInfo | null | undefined, text: Redact): Info {
  return { code: foldSpelling(w?.code ?? ''), name: clean(text, w?.name), message: clean(text, w?.message) };
}

export function toAccount(w: { username: string; displayname?: string | null }, text: Redact): Account {
  const username = text(w.username);
  return { username, displayName: clean(text, w.displayname) ?? username };
}

export function toFees(w: WireFees): Fees {
  return {
    costEntries: (w.cost_entries ?? []).map((e): CostEntry => ({
      feeType: e.fee_type,
      percentage: e.percentage ?? null,
      amountInCents: e.amount_in_cents,
      currency: e.currency ?? null,
      taxType: e.tax_type ?? null,
      taxInCents: e.tax_in_cents ?? 0,
      numberOfGifts: e.number_of_gifts ?? null,
      feePerGiftInCents: e.fee_per_gift_in_cents ?? null,
    })),
    subtotalInCents: w.subtotal_in_cents,
    taxInCents: w.tax_in_cents ?? 0,
    taxType: w.tax_type ?? null,
    totalInCents: w.total_in_cents,
  };
}

export function toContact(c: WireContact, text: Redact): ContactResult {
  return {
    email: text(c.email),
    firstName: clean(text, c.firstname),
    lastName: clean(text, c.lastname),
    message: clean(text, c.message),
    addedSuccessfully: c.added_succesfully ?? c.added_successfully ?? null,
  };
}

export function toCampaign(w: WireCampaign, text: Redact): Campaign {
  return {
    id: w.id,
    uuid: w.uuid,
    status: w.status,
    deliveryType: w.delivery_type,
    companyName: clean(text, w.company_name),
    message: clean(text, w.message),
    subject: clean(text, w.subject),
    suppressDefaultGreeting: w.suppress_default_greeting ?? null,
    giftTemplate: clean(text, w.gift_template),
    contacts: w.contacts?.map((c) => toContact(c, text)) ?? null,
    contactsSuccessCount: w.contacts_success_count ?? w.contact_success_count ?? null,
    contactsFailureCount: w.contacts_failure_count ?? w.contact_failure_count ?? null,
    priceInCents: w.price_in_cents,
    brandCodes: w.brand_codes ?? (w.brand_code ? [w.brand_code] : []),
    region: w.region ?? null,
    fees: w.fees ? toFees(w.fees) : null,
    expiry: w.expiry ?? null,
    linkCount: w.link_count ?? null,
  };
}

/**
 * How the money stands behind an accepted order. The info code of the create answer is the precise signal
 * (FUNDS_PENDING is checked first: it is the narrower case of an order waiting for money); a campaign read
 * later only has its status, which tells AWAITING_FUNDS but cannot tell pending from required.
 */
export function toFunding(infoCode: string | null, status: string): Funding {
  if (infoCode === 'INFO_CAMPAIGN_CREATED_FUNDS_PENDING') return 'FUNDS_PENDING';
  if (infoCode === 'INFO_CAMPAIGN_CREATED_FUNDS_REQUIRED' || status === 'AWAITING_FUNDS') return 'AWAITING_FUNDS';
  return 'FUNDED';
}

export function toGift(w: WireGift, text: Redact): Gift {
  return {
    uuid: w.uuid,
    campaignUuid: w.campaign_uuid,
    campaignId: w.campaign_id ?? null,
    status: foldSpelling(w.status),
    deliveryStatus: w.delivery_status,
    priceInCents: w.price_in_cents,
    brandCode: w.brand_code ?? null,
    recipientEmail: clean(text, w.recipient_email),
    recipientName: clean(text, w.recipient_name),
    redeliveryCount: w.redelivery_count ?? 0,
    createdDate: w.created_date,
    deliveryDate: w.delivery_date,
    redeemedDate: w.redeemed_date,
    expiry: w.expiry ?? null,
    managementDashboardLink: clean(text, w.management_dashboard_link),
    shortlink: clean(text, w.shortlink),
  };
}

/** Paging fields the upstream leaves out are filled from what was asked and what came back. */
export function toPage<T>(items: T[], w: WirePage, asked: { limit?: number; offset?: number }): Page<T> {
  const offset = w.offset ?? asked.offset ?? 0;
  return {
    items,
    numberOfResults: w.number_of_results ?? items.length,
    limit: w.limit ?? asked.limit ?? items.length,
    offset,
    totalCount: w.total_count ?? offset + items.length,
  };
}

export function toBrandSummary(w: WireBrandSummary, text: Redact): BrandSummary {
  return { brandCode: w.brand_code, name: text(w.name), imageUrl: clean(text, w.image_url), disclaimer: clean(text, w.disclaimer) };
}

export function toBrand(w: WireBrand, text: Redact): Brand {
  const variablePrice = w.variable_price ?? w.allowed_prices_in_cents == null;
  return {
    ...toBrandSummary(w, text),
    description: clean(text, w.description),
    regionIds: w.regions ?? [],
    currency: w.fund_currencyisocode ?? null,
    variablePrice,
    minPriceInCents: w.min_price_in_cents ?? null,
    maxPriceInCents: w.max_price_in_cents ?? null,
    allowedPricesInCents: w.allowed_prices_in_cents ?? null,
    embeddable: w.embeddable ?? false,
    expiryPeriod: clean(text, w.expiry_period),
  };
}

export function toFunds(
  w: Record<string, { available_in_cents?: number | null; pending_in_cents?: number | null; reserved_in_cents?: number | null }>,
): Funds {
  const balances = Object.entries(w)
    .map(([currency, b]): CurrencyBalance => ({
      currency,
      availableInCents: b.available_in_cents ?? 0,
      pendingInCents: b.pending_in_cents ?? 0,
      reservedInCents: b.reserved_in_cents ?? 0,
    }))
    .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
  return { balances };
}

export function toLinkPage(
  w: WirePage & {
    info?: WireInfo | null;
    shortlinks?: { number: number; shortlink: string }[] | null;
    directlinks?: { number: number; link: string }[] | null;
  },
  asked: { limit?: number; offset?: number },
  text: Redact,
): LinkPage {
  const links: Link[] = w.shortlinks
    ? w.shortlinks.map((l) => ({ number: l.number, url: text(l.shortlink) }))
    : (w.directlinks ?? []).map((l) => ({ number: l.number, url: text(l.link) }));
  links.sort((a, b) => a.number - b.number);
  const page = toPage(links, w, asked);
  return {
    ready: w.info?.code !== 'INFO_LINKS_GENERATION_IN_PROGRESS',
    kind: w.shortlinks ? 'SHORTLINK' : w.directlinks ? 'DIRECT_LINK' : null,
    links,
    limit: page.limit,
    offset: page.offset,
    totalCount: page.totalCount,
  };
}
