import { LINKS_PAGE_MAX, type Brand, type Campaign, type ContactResult, type CostEntry, type Fees, type Link } from '../upstream/types.js';
import { gatewayError } from '../errors/gateway-error.js';
import type { CampaignStatusChange } from '../live/live.js';
import { ref, refList } from '../orders/order-rules.js';
import { REFS_MAX } from '../orders/limits.js';
import { builder } from './builder.js';
import { OBSERVED_AT } from './observed-at.js';
import { MONEY } from './money.js';
import { AFTER_DESCRIPTION, CHANGED_AT_DESCRIPTION, CURSOR_DESCRIPTION } from './cursor-docs.js';
import { CampaignStatus, DeliveryType, GiftStatus } from './enums.js';
import { GiftConnection } from './gift.js';
import { expiresAt } from '../orders/expiry.js';
import { connectionTotal, emptyConnection, pageToConnection, pageWindow, toConnection, upstreamWindow } from './paging.js';
import { BrandRef, CampaignRef } from './refs.js';
import { rejectErrors } from './reject-errors.js';

const CostEntryRef = builder.objectRef<CostEntry>('CostEntry').implement({
  fields: (t) => ({
    feeType: t.exposeString('feeType', { description: 'e.g. PREFUND_GIFT_COST, BREAKAGE_PERCENTAGE, UPFRONT_PER_GIFT_FEE' }),
    percentage: t.exposeFloat('percentage', { nullable: true }),
    amountInCents: t.expose('amountInCents', { type: MONEY }),
    currency: t.exposeString('currency', { nullable: true }),
    taxType: t.exposeString('taxType', { nullable: true }),
    taxInCents: t.expose('taxInCents', { type: MONEY }),
    numberOfGifts: t.exposeInt('numberOfGifts', { nullable: true }),
    feePerGiftInCents: t.expose('feePerGiftInCents', { type: MONEY, nullable: true }),
  }),
});

export const FeesRef = builder.objectRef<Fees>('Fees').implement({
  fields: (t) => ({
    costEntries: t.field({ type: [CostEntryRef], resolve: (fees) => fees.costEntries }),
    subtotalInCents: t.expose('subtotalInCents', { type: MONEY }),
    taxInCents: t.expose('taxInCents', { type: MONEY }),
    taxType: t.exposeString('taxType', { nullable: true }),
    totalInCents: t.expose('totalInCents', { type: MONEY }),
  }),
});

export const ContactRef = builder.objectRef<ContactResult>('Contact').implement({
  description: 'What the upstream did with one recipient of an email order.',
  fields: (t) => ({
    email: t.exposeString('email'),
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
    message: t.exposeString('message', { nullable: true, description: 'e.g. "New contact" or a rejection reason.' }),
    addedSuccessfully: t.exposeBoolean('addedSuccessfully', { nullable: true }),
  }),
});

const LinkRef = builder.objectRef<Link>('Link').implement({
  description: 'One claimable reward link of a link order.',
  fields: (t) => ({ number: t.exposeInt('number'), url: t.exposeString('url') }),
});

const LinkConnection = builder.connectionObject(
  {
    type: LinkRef,
    name: 'LinkConnection',
    fields: (t) => ({
      totalCount: t.int({ resolve: connectionTotal }),
      generating: t.boolean({
        description: 'True while the upstream is still generating the links; ask again shortly.',
        resolve: (connection) => (connection as { generating?: boolean }).generating ?? false,
      }),
    }),
  },
  // The edge's node as a property (paging.ts, OffsetEdge).
  { fields: (t) => ({ node: t.expose('node', { type: LinkRef }) }) },
);

const LINK_DELIVERY = new Set(['DIRECT_LINK', 'SHORTLINK']);

builder.node(CampaignRef, {
  description: 'An order: one or more rewards sent by email, short link, direct link or embedded.',
  id: { resolve: (campaign) => campaign.uuid },
  loadOne: (uuid, ctx) => ctx.loaders.campaign.load(uuid),
  fields: (t) => ({
    id: t.exposeID('id', { description: "The caller's id (idempotency key) given when the order was created." }),
    uuid: t.exposeID('uuid'),
    observedAt: t.field(OBSERVED_AT),
    status: t.field({ type: CampaignStatus.ref, resolve: (c) => CampaignStatus.read(c.status) }),
    rawStatus: t.exposeString('status', { description: 'The status exactly as the upstream sent it.' }),
    deliveryType: t.field({ type: DeliveryType.ref, resolve: (c) => DeliveryType.read(c.deliveryType) }),
    rawDeliveryType: t.exposeString('deliveryType'),
    companyName: t.exposeString('companyName', { nullable: true }),
    message: t.exposeString('message', { nullable: true }),
    subject: t.exposeString('subject', { nullable: true }),
    suppressDefaultGreeting: t.exposeBoolean('suppressDefaultGreeting', { nullable: true }),
    giftTemplate: t.exposeString('giftTemplate', { nullable: true }),
    contacts: t.field({ type: [ContactRef], nullable: true, resolve: (c) => c.contacts }),
    contactsSuccessCount: t.exposeInt('contactsSuccessCount', { nullable: true }),
    contactsFailureCount: t.exposeInt('contactsFailureCount', { nullable: true }),
    priceInCents: t.expose('priceInCents', { type: MONEY, description: 'Face value of each reward.' }),
    currency: t.string({
      nullable: true,
      description: 'Currency of the order, from its fees.',
      resolve: (c) => c.fees?.costEntries.find((entry) => entry.currency)?.currency ?? null,
    }),
    brandCodes: t.exposeStringList('brandCodes'),
    brands: t.field({
      type: [BrandRef],
      // Each brand is its own upstream read: a failing one is a null entry with its error, the rest stay.
      nullable: { list: true, items: true },
      description:
        'The brands offered. Empty for a full-catalog order: see `region`. A brand whose details could not be ' +
        'read is null, with the error on its path.',
      resolve: async (c, _args, ctx) => {
        const brands = await ctx.loaders.brand.loadMany(c.brandCodes);
        // Unknown codes are left out; a failed read is an error on its entry alone.
        return rejectErrors<Brand>(brands.filter((b) => b !== null));
      },
    }),
    region: t.exposeString('region', { nullable: true, description: 'Region of a full-catalog order.' }),
    fees: t.field({ type: FeesRef, nullable: true, resolve: (c) => c.fees }),
    expiry: t.expose('expiry', { type: 'Date', nullable: true, description: 'Last claimable day (Pacific); null: never expires.' }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the rewards stop being claimable: the end of `expiry`, Pacific time. Null: never.',
      resolve: (c) => expiresAt(c.expiry),
    }),
    linkCount: t.exposeInt('linkCount', { nullable: true }),
    gifts: t.field({
      type: GiftConnection,
      // Its own upstream call: a failure nulls this field alone, not the order above it.
      nullable: true,
      args: {
        first: t.arg.int(),
        after: t.arg.string(),
        status: t.arg({ type: GiftStatus.ref }),
      },
      resolve: async (c, { first, after, status }, ctx) => {
        const window = pageWindow({ first, after });
        const page = await ctx.loaders.giftPage.load({
          campaignUuid: c.uuid,
          status: status && status !== 'UNKNOWN' ? GiftStatus.write(status) : undefined,
          ...upstreamWindow(window),
        });
        return pageToConnection(page, window);
      },
    }),
    links: t.field({
      type: LinkConnection,
      nullable: true,
      description: 'Claimable links of a direct-link or short-link order; empty for other orders.',
      args: { first: t.arg.int(), after: t.arg.string() },
      resolve: async (c, { first, after }, ctx) => {
        const window = pageWindow({ first, after }, LINKS_PAGE_MAX);
        if (!LINK_DELIVERY.has(DeliveryType.read(c.deliveryType))) return emptyConnection<Link>();
        const page = await ctx.loaders.linkPage.load({ id: c.id, ...upstreamWindow(window) });
        if (!page) return emptyConnection<Link>();
        return { ...toConnection(page.links, page.totalCount, window), generating: !page.ready };
      },
    }),
  }),
});

builder.queryFields((t) => ({
  campaign: t.field({
    type: CampaignRef,
    nullable: true,
    authScopes: { 'rewards:read': true },
    description: 'An order by caller id or uuid; null when the upstream does not know it.',
    args: { ref: t.arg.id({ required: true, description: 'Caller id or uuid of the order.', validate: { schema: ref } }) },
    resolve: (_root, { ref }, ctx) => ctx.loaders.campaign.load(ref),
  }),
  campaigns: t.field({
    type: [CampaignRef],
    nullable: { list: false, items: true },
    authScopes: { 'rewards:read': true },
    description: `Several orders at once, fetched concurrently; null entries for unknown refs. At most ${REFS_MAX}.`,
    args: { refs: t.arg.idList({ required: true, description: 'Caller ids or uuids.', validate: { schema: refList } }) },
    resolve: async (_root, { refs }, ctx) => {
      // A failed lookup is an error on that entry alone, so one bad ref does not blank the others.
      return rejectErrors<Campaign | null>(await ctx.loaders.campaign.loadMany(refs));
    },
  }),
}));

const CampaignStatusChangeRef = builder.objectRef<CampaignStatusChange>('CampaignStatusChange').implement({
  description: 'An order whose status changed, with the status before.',
  fields: (t) => ({
    campaign: t.field({ type: CampaignRef, description: 'The order as it is now.', resolve: (change) => change.campaign }),
    previousStatus: t.field({ type: CampaignStatus.ref, resolve: (change) => CampaignStatus.read(change.previousStatus) }),
    cursor: t.exposeString('cursor', { description: CURSOR_DESCRIPTION }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: CHANGED_AT_DESCRIPTION }),
  }),
});

builder.subscriptionField('campaignStatusChanged', (t) =>
  t.field({
    type: CampaignStatusChangeRef,
    authScopes: { 'rewards:read': true },
    description:
      'The order (caller id or uuid) each time its status changes, e.g. AWAITING_FUNDS → CREATED. Completes ' +
      'once the order is created: no status follows that one.',
    args: {
      ref: t.arg.id({ required: true, description: 'Caller id or uuid of the order.', validate: { schema: ref } }),
      after: t.arg.string({ description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, { ref, after }, ctx) => {
      const changes = await ctx.live.campaignStatus({
        ref,
        lookup: (r) => ctx.loaders.campaign.load(r),
        after: after ?? null,
        watcher: ctx.caller.name,
      });
      if (!changes) throw gatewayError('NOT_FOUND', { ref });
      return changes;
    },
    resolve: (change, _args, ctx) => {
      // One context serves the whole subscription: each event brings fresh loaders, shared by its subscribers.
      ctx.loaders = ctx.eventLoaders(change.campaign);
      return change;
    },
  }),
);
