// Query strings in the production parameter names. Dates go out as Pacific wall time like everything else
// the API reads; absent values are left out rather than sent empty.

import { formatPacific } from '../shared/pacific-time.js';
import type { BrandQuery, GiftQuery } from './types.js';

type QueryValue = string | number | boolean | Date | undefined;

export function queryString(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  // Every call reads a query of about twenty names, most absent: no entry pairs, and names are unique already.
  for (const name in params) {
    const value = params[name];
    if (value === undefined) continue;
    search.append(name, value instanceof Date ? formatPacific(value) : String(value));
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}

/**
 * Filters whose values name a person (a recipient's email or name): personal data a trace must not carry, so the
 * client span's URL has them REDACTED (transport.ts). Lower case, as the API spells them.
 */
export const PERSONAL_PARAMETERS: ReadonlySet<string> = new Set(['recipient_email', 'recipient_name']);

export function giftQuery(q: GiftQuery): string {
  return queryString({
    uuid: q.uuid,
    campaign_uuid: q.campaignUuid,
    campaign_id: q.campaignId,
    status: q.status,
    delivery_status: q.deliveryStatus,
    recipient_email: q.recipientEmail,
    recipient_name: q.recipientName,
    price_in_cents_greater_than: q.priceInCentsGreaterThan,
    price_in_cents_less_than: q.priceInCentsLessThan,
    created_date_greater_than: q.createdDateGreaterThan,
    created_date_less_than: q.createdDateLessThan,
    delivery_date_greater_than: q.deliveryDateGreaterThan,
    delivery_date_less_than: q.deliveryDateLessThan,
    redeemed_date_greater_than: q.redeemedDateGreaterThan,
    redeemed_date_less_than: q.redeemedDateLessThan,
    redelivery_count_greater_than: q.redeliveryCountGreaterThan,
    redelivery_count_less_than: q.redeliveryCountLessThan,
    limit: q.limit,
    offset: q.offset,
    sort: q.sort,
    order: q.order,
  });
}

export function brandQuery(q: BrandQuery): string {
  return queryString({
    region: q.regionId,
    min_price_in_cents: q.minPriceInCents,
    max_price_in_cents: q.maxPriceInCents,
    currencyisocode: q.currency,
    search: q.search,
    embeddable: q.embeddable,
    limit: q.limit,
    offset: q.offset,
  });
}
