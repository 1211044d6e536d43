// Rewards: the record the API shows, the list with every production filter/sort/page parameter, and each
// state transition (resend and cancel from the API; redeem, bounce and expire from the control API).
import { z } from 'zod';
import { REWARD_URL } from './account.js';
import type { Handler } from './context.js';
import { invalidParameter, invalidState, notFound } from './errors.js';
import { refund, spend } from './funds.js';
import { info } from './info.js';
import { formatPacific, parseDateFilter } from '../shared/pacific-time.js';
import type { DeliveryStatus, Gift, SandboxState } from './state.js';
import { parseBody, Query } from './validate.js';

const pacificOrNull = (d: Date | null) => (d ? formatPacific(d) : null);

export function giftView(gift: Gift): Record<string, unknown> {
  return {
    uuid: gift.uuid,
    campaign_uuid: gift.order.uuid,
    campaign_id: gift.order.id,
    status: gift.status,
    delivery_status: gift.deliveryStatus,
    price_in_cents: gift.order.priceInCents,
    // Production leaves brand_code out until the recipient has picked a brand of a multi-brand order.
    ...(gift.brandCode ? { brand_code: gift.brandCode } : {}),
    recipient_email: gift.recipientEmail,
    recipient_name: gift.recipientName,
    delivered_to: gift.deliveredTo,
    redelivery_count: gift.redeliveryCount,
    created_date: formatPacific(gift.createdAt),
    delivery_date: pacificOrNull(gift.deliveredAt),
    redeemed_date: pacificOrNull(gift.redeemedAt),
    // No gift-level expiry: production gift records carry none (the order's `expiry` applies).
    management_dashboard_link: `${REWARD_URL}/dashboard/gifts/${gift.uuid}`,
    // The claim URL of every link-based reward (short link, direct link, embedded gift link); null for email.
    shortlink: gift.link,
  };
}

const CLAIM_STATUSES: readonly string[] = ['SENT_AND_REDEEMABLE', 'REDEEMED', 'EXPIRED', 'GIVER_CANCELED', 'GIVER_CANCELLED', 'TO_CHARITY'];
const DELIVERY_STATUSES: readonly string[] = [
  'UNSENT',
  'DELIVERED',
  'LINKCREATED',
  'TEMPORARILY_UNDELIVERABLE',
  'UNDELIVERABLE',
  'UNSUBSCRIBED',
  'COMPLAINT',
];
const SORT_FIELDS = ['campaign_id', 'price_in_cents', 'recipient_name', 'recipient_email', 'delivery_status', 'status'] as const;
type SortField = (typeof SORT_FIELDS)[number];

const sortValue: Record<SortField, (g: Gift) => string | number | null> = {
  campaign_id: (g) => g.order.id,
  price_in_cents: (g) => g.order.priceInCents,
  recipient_name: (g) => g.recipientName,
  recipient_email: (g) => g.recipientEmail,
  delivery_status: (g) => g.deliveryStatus,
  status: (g) => g.status,
};

/** Nulls sort before any value; equal values keep creation order. */
function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

type Predicate = (g: Gift) => boolean;

function textFilter(q: Query, name: string, pick: (g: Gift) => string | null): Predicate | null {
  const needle = q.string(name);
  if (needle === undefined) return null;
  if (needle.length < 3) throw invalidParameter(`${name}: give at least 3 characters`);
  const lower = needle.toLowerCase();
  return (g) => pick(g)?.toLowerCase().includes(lower) ?? false;
}

function rangeFilters(q: Query, name: string, pick: (g: Gift) => number): Predicate[] {
  const bounds = { min: 0, max: Number.MAX_SAFE_INTEGER };
  const above = q.int(`${name}_greater_than`, bounds);
  const below = q.int(`${name}_less_than`, bounds);
  return [...(above !== undefined ? [(g: Gift) => pick(g) > above] : []), ...(below !== undefined ? [(g: Gift) => pick(g) < below] : [])];
}

function dateFilters(q: Query, name: string, pick: (g: Gift) => Date | null): Predicate[] {
  const parse = (param: string): Date | undefined => {
    const raw = q.string(param);
    if (raw === undefined) return undefined;
    const parsed = parseDateFilter(raw);
    if (!parsed) throw invalidParameter(`${param}: expected "yyyy-MM-dd HH:mm:ss" (Pacific) or ISO-8601 with a zone`);
    return parsed;
  };
  const after = parse(`${name}_greater_than`);
  const before = parse(`${name}_less_than`);
  // Compared at whole seconds, the precision the records show: `_greater_than` a record's own date excludes it.
  const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);
  const out: Predicate[] = [];
  if (after) out.push((g) => (seconds(pick(g)) ?? Number.NEGATIVE_INFINITY) > after.getTime() / 1000);
  if (before) out.push((g) => (seconds(pick(g)) ?? Number.POSITIVE_INFINITY) < before.getTime() / 1000);
  return out;
}

function exact(q: Query, name: string, pick: (g: Gift) => string, allowed?: readonly string[]): Predicate | null {
  const value = allowed ? q.oneOf(name, allowed) : q.string(name);
  if (value === undefined) return null;
  // The specification spells the cancelled claim status GIVER_CANCELED, production GIVER_CANCELLED: both match.
  const wanted = value === 'GIVER_CANCELLED' ? 'GIVER_CANCELED' : value;
  return (g) => pick(g) === wanted;
}

export const listGifts: Handler = ({ ctx, search }) => {
  const q = new Query(search);
  const limit = q.int('limit', { min: 1, max: 100 }, 20);
  const offset = q.int('offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0);
  const sort = q.oneOf('sort', SORT_FIELDS);
  const order = q.oneOf('order', ['asc', 'desc'] as const) ?? 'desc';
  const predicates = [
    exact(q, 'uuid', (g) => g.uuid),
    exact(q, 'campaign_uuid', (g) => g.order.uuid),
    exact(q, 'campaign_id', (g) => g.order.id),
    exact(q, 'status', (g) => g.status, CLAIM_STATUSES),
    exact(q, 'delivery_status', (g) => g.deliveryStatus, DELIVERY_STATUSES),
    textFilter(q, 'recipient_email', (g) => g.recipientEmail),
    textFilter(q, 'recipient_name', (g) => g.recipientName),
    ...rangeFilters(q, 'price_in_cents', (g) => g.order.priceInCents),
    ...rangeFilters(q, 'redelivery_count', (g) => g.redeliveryCount),
    ...dateFilters(q, 'created_date', (g) => g.createdAt),
    ...dateFilters(q, 'delivery_date', (g) => g.deliveredAt),
    ...dateFilters(q, 'redeemed_date', (g) => g.redeemedAt),
  ].filter((p): p is Predicate => p !== null);

  const direction = order === 'asc' ? 1 : -1;
  const key = sort ? sortValue[sort] : null;
  const matching = [...ctx.state.gifts.values()]
    .filter((g) => predicates.every((p) => p(g)))
    .sort((a, b) => direction * ((key ? compare(key(a), key(b)) : 0) || a.seq - b.seq));
  const page = matching.slice(offset, offset + limit);
  return {
    headers: { 'cache-control': 'private, max-age=5' },
    body: {
      gifts: page.map(giftView),
      number_of_results: page.length,
      limit,
      offset,
      total_count: matching.length,
      info: info('INFO_GIFTS', 'Gifts', 'Gifts retrieved.'),
      status: 200,
    },
  };
};

export function findGift(state: SandboxState, uuid: string): Gift {
  const gift = state.gifts.get(uuid);
  if (!gift) throw notFound('ERROR_GIFT_NOT_FOUND', `No gift with uuid ${uuid}.`);
  return gift;
}

const giftAnswer = (gift: Gift, code: string, message: string) => ({
  body: { gift: giftView(gift), info: info(code, 'Gifts', message), status: 200 },
});

export const getGift: Handler = ({ ctx, params }) => giftAnswer(findGift(ctx.state, params.uuid!), 'INFO_GIFTS', 'Gift retrieved.');

const resendSchema = z.object({ resend: z.literal(true) });
const resendByBodySchema = resendSchema.extend({ uuid: z.string().min(1) });

function resend(state: SandboxState, gift: Gift): void {
  if (gift.order.deliveryType !== 'SERVICE_EMAIL') throw invalidState('Only email rewards can be resent.');
  if (gift.status !== 'SENT_AND_REDEEMABLE') throw invalidState(`A ${gift.status} reward cannot be resent.`);
  gift.deliveryStatus = 'DELIVERED';
  gift.deliveredAt = state.clock.now();
  gift.redeliveryCount++;
}

/** `PUT /gifts/{uuid}` with `{"resend": true}`: production's resend. Not idempotent: every call sends again. */
export const resendGift: Handler = ({ ctx, params, body }) => {
  parseBody(resendSchema, body);
  const gift = findGift(ctx.state, params.uuid!);
  resend(ctx.state, gift);
  return giftAnswer(gift, 'INFO_GIFTS_RESENT', 'The gift email was sent again.');
};

/** `PUT /gifts` (the specification's form): the same resend with the uuid in the body. */
export const resendGiftByBody: Handler = ({ ctx, body }) => {
  const req = parseBody(resendByBodySchema, body);
  const gift = findGift(ctx.state, req.uuid);
  resend(ctx.state, gift);
  return giftAnswer(gift, 'INFO_GIFTS_RESENT', 'The gift email was sent again.');
};

export const cancelGift: Handler = ({ ctx, params }) => {
  const gift = findGift(ctx.state, params.uuid!);
  if (gift.order.deliveryType === 'EMBEDDED') throw invalidState('Embedded rewards cannot be cancelled.');
  if (gift.status !== 'GIVER_CANCELED') {
    if (gift.status !== 'SENT_AND_REDEEMABLE') throw invalidState(`A ${gift.status} reward cannot be cancelled.`);
    gift.status = 'GIVER_CANCELED';
    refund(ctx.state, gift);
  }
  return giftAnswer(gift, 'INFO_GIFTS_CANCELED', 'The gift was cancelled and its funds returned.');
};

function requireClaimable(gift: Gift, action: string): void {
  if (gift.status !== 'SENT_AND_REDEEMABLE') throw invalidState(`A ${gift.status} reward cannot be ${action}.`);
}

/** The recipient claims the reward, picking a brand of a multi-brand order (the first one by default). */
export function redeem(state: SandboxState, gift: Gift, brandCode?: string): void {
  requireClaimable(gift, 'redeemed');
  const undeliverable: readonly DeliveryStatus[] = ['UNSENT', 'UNDELIVERABLE', 'TEMPORARILY_UNDELIVERABLE'];
  if (undeliverable.includes(gift.deliveryStatus)) {
    throw invalidState(`A reward whose delivery is ${gift.deliveryStatus} cannot be claimed.`);
  }
  const choice = brandCode ?? gift.brandCode ?? gift.order.brandCodes[0]!;
  if (!gift.order.brandCodes.includes(choice)) {
    throw invalidParameter(`brand_code: ${choice} is not offered by this order (${gift.order.brandCodes.join(', ')})`);
  }
  gift.brandCode = choice;
  gift.status = 'REDEEMED';
  gift.redeemedAt = state.clock.now();
  spend(state, gift);
}

export function bounce(gift: Gift, permanent: boolean): void {
  if (gift.order.deliveryType !== 'SERVICE_EMAIL') throw invalidState('Only email rewards can bounce.');
  requireClaimable(gift, 'bounced');
  gift.deliveryStatus = permanent ? 'UNDELIVERABLE' : 'TEMPORARILY_UNDELIVERABLE';
}

export function expire(state: SandboxState, gift: Gift): void {
  requireClaimable(gift, 'expired');
  gift.status = 'EXPIRED';
  refund(state, gift);
}
