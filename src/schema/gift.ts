import type { GatewayContext } from '../graph/context.js';
import { expiresAt } from '../orders/expiry.js';
import type { Gift, GiftQuery } from '../upstream/types.js';
import { ref } from '../orders/order-rules.js';
import { builder } from './builder.js';
import { offsetConnection } from './offset-connection.js';
import { OBSERVED_AT } from './observed-at.js';
import { MONEY } from './money.js';
import { DeliveryStatus, GiftStatus, SortDirection } from './enums.js';
import { pageToConnection, pageWindow, upstreamWindow } from './paging.js';
import { BrandRef, CampaignRef, GiftRef } from './refs.js';

/**
 * Production gift records carry no expiry of their own: the order's applies (one campaign GET per order, shared
 * through the request's loader with gift.campaign and anything else reading that order).
 */
async function giftExpiry(gift: Gift, _args: object, ctx: GatewayContext): Promise<string | null> {
  if (gift.expiry) return gift.expiry;
  return (await ctx.loaders.campaign.load(gift.campaignUuid))?.expiry ?? null;
}

builder.node(GiftRef, {
  description: 'One reward: a gift card or prepaid card delivered to one recipient or link.',
  id: { resolve: (gift) => gift.uuid },
  loadOne: (uuid, ctx) => ctx.loaders.gift.load(uuid),
  fields: (t) => ({
    uuid: t.exposeID('uuid'),
    campaignUuid: t.exposeID('campaignUuid'),
    campaignId: t.exposeID('campaignId', { nullable: true }),
    campaign: t.field({
      type: CampaignRef,
      nullable: true,
      // Free when the campaign was already read in this request: the campaign loader is primed by uuid.
      resolve: (gift, _args, ctx) => ctx.loaders.campaign.load(gift.campaignUuid),
    }),
    status: t.field({ type: GiftStatus.ref, resolve: (gift) => GiftStatus.read(gift.status) }),
    rawStatus: t.exposeString('status', { description: 'The claim status exactly as the upstream sent it.' }),
    deliveryStatus: t.field({ type: DeliveryStatus.ref, resolve: (gift) => DeliveryStatus.read(gift.deliveryStatus) }),
    rawDeliveryStatus: t.exposeString('deliveryStatus', {
      description: 'The delivery status exactly as the upstream sent it.',
    }),
    priceInCents: t.expose('priceInCents', { type: MONEY }),
    brandCode: t.exposeString('brandCode', {
      nullable: true,
      description: 'Null until the recipient picks a brand from a multi-brand order.',
    }),
    brand: t.field({
      type: BrandRef,
      nullable: true,
      resolve: (gift, _args, ctx) => (gift.brandCode ? ctx.loaders.brandOf(gift.brandCode) : null),
    }),
    recipientEmail: t.exposeString('recipientEmail', { nullable: true }),
    recipientName: t.exposeString('recipientName', { nullable: true }),
    redeliveryCount: t.exposeInt('redeliveryCount'),
    createdDate: t.expose('createdDate', { type: 'DateTime', nullable: true }),
    deliveryDate: t.expose('deliveryDate', { type: 'DateTime', nullable: true }),
    redeemedDate: t.expose('redeemedDate', { type: 'DateTime', nullable: true }),
    observedAt: t.field(OBSERVED_AT),
    expiry: t.field({
      type: 'Date',
      nullable: true,
      description: "Last claimable day (Pacific): the reward's own, else its order's. Null: never expires.",
      resolve: giftExpiry,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the reward stops being claimable: the end of `expiry`, Pacific time. Null: never.',
      resolve: async (gift, _args, ctx) => expiresAt(await giftExpiry(gift, _args, ctx)),
    }),
    managementDashboardLink: t.exposeString('managementDashboardLink', { nullable: true }),
    shortlink: t.exposeString('shortlink', { nullable: true }),
  }),
});

export const GiftConnection = offsetConnection(GiftRef, 'GiftConnection');

const GiftSortField = builder.enumType('GiftSortField', {
  values: {
    CAMPAIGN_ID: { value: 'campaign_id' },
    PRICE_IN_CENTS: { value: 'price_in_cents' },
    RECIPIENT_NAME: { value: 'recipient_name' },
    RECIPIENT_EMAIL: { value: 'recipient_email' },
    DELIVERY_STATUS: { value: 'delivery_status' },
    STATUS: { value: 'status' },
  } as const,
});

const GiftSort = builder.inputType('GiftSort', {
  fields: (t) => ({
    field: t.field({ type: GiftSortField, required: true }),
    direction: t.field({ type: SortDirection, defaultValue: 'DESC' }),
  }),
});

const substring = { minLength: [3, { message: 'must be at least 3 characters (upstream substring search)' }] as [number, { message: string }] };

const GiftFilter = builder.inputType('GiftFilter', {
  description: 'Every filter of the upstream gifts list; ranges are exclusive (greater than / less than).',
  fields: (t) => ({
    campaignUuid: t.id(),
    campaignId: t.id(),
    status: t.field({ type: GiftStatus.ref }),
    deliveryStatus: t.field({ type: DeliveryStatus.ref }),
    recipientEmail: t.string({ validate: substring }),
    recipientName: t.string({ validate: substring }),
    // The upstream refuses negative bounds (a 422): refused here, before anything is sent.
    priceInCentsGreaterThan: t.field({ type: MONEY, validate: { min: 0 } }),
    priceInCentsLessThan: t.field({ type: MONEY, validate: { min: 0 } }),
    createdDateGreaterThan: t.field({ type: 'DateTime' }),
    createdDateLessThan: t.field({ type: 'DateTime' }),
    deliveryDateGreaterThan: t.field({ type: 'DateTime' }),
    deliveryDateLessThan: t.field({ type: 'DateTime' }),
    redeemedDateGreaterThan: t.field({ type: 'DateTime' }),
    redeemedDateLessThan: t.field({ type: 'DateTime' }),
    redeliveryCountGreaterThan: t.int({ validate: { min: 0 } }),
    redeliveryCountLessThan: t.int({ validate: { min: 0 } }),
    sort: t.field({ type: GiftSort }),
  }),
});

type GiftFilterShape = typeof GiftFilter.$inferInput;

/** GraphQL filter → upstream query; enum values go back to their production spellings. */
export function toGiftQuery(filter: GiftFilterShape | null | undefined): GiftQuery {
  if (!filter) return {};
  const { status, deliveryStatus, sort, ...rest } = filter;
  const query: GiftQuery = {};
  for (const [key, value] of Object.entries(rest)) {
    if (value != null) (query as Record<string, unknown>)[key] = value;
  }
  if (status && status !== 'UNKNOWN') query.status = GiftStatus.write(status);
  if (deliveryStatus && deliveryStatus !== 'UNKNOWN') query.deliveryStatus = DeliveryStatus.write(deliveryStatus);
  if (sort) {
    query.sort = sort.field;
    query.order = sort.direction === 'ASC' ? 'asc' : 'desc';
  }
  return query;
}

builder.queryFields((t) => ({
  gift: t.field({
    type: GiftRef,
    nullable: true,
    authScopes: { 'rewards:read': true },
    args: { uuid: t.arg.id({ required: true, validate: { schema: ref } }) },
    resolve: (_root, { uuid }, ctx) => ctx.loaders.gift.load(uuid),
  }),
  gifts: t.field({
    type: GiftConnection,
    nullable: true,
    authScopes: { 'rewards:read': true },
    description: 'Rewards across the account, newest first unless sorted otherwise.',
    args: {
      filter: t.arg({ type: GiftFilter }),
      first: t.arg.int(),
      after: t.arg.string(),
    },
    resolve: async (_root, { filter, first, after }, ctx) => {
      const window = pageWindow({ first, after });
      const page = await ctx.loaders.giftPage.load({ ...toGiftQuery(filter), ...upstreamWindow(window) });
      return pageToConnection(page, window);
    },
  }),
}));
