import type { z } from 'zod';
import type { GatewayContext } from '../graph/context.js';
import { IdempotencyConflict, InputValidationError, OutcomeUnknown, UpstreamRejected, UpstreamUnavailable } from '../orders/errors.js';
import { unavailableAsData } from '../orders/upstream-rejections.js';
import { createCampaignInput, createDirectLinksInput } from '../orders/order-rules.js';
import { resolveRewardChoice } from '../orders/reward-choice.js';
import { fundingNow, sendCreate, type SentCreate } from '../orders/replays.js';
import type { Campaign, CreatedCampaign, Funding } from '../upstream/types.js';
import { builder } from './builder.js';
import { DeliveryType } from './enums.js';
import { MONEY } from './money.js';
import { CampaignRef } from './refs.js';
import { REPLAYED } from './replayed.js';

// Creating orders. The caller's `id` is passed through unchanged as the upstream idempotency key, so a
// client retrying the same create (or the gateway retrying on its own) never makes a second order.

interface CreateCampaignPayloadShape {
  campaign: Campaign;
  funding: Funding;
  links: string[] | null;
  replayed: boolean | null;
}

const FundingState = builder.enumType('FundingState', {
  description: 'How an accepted order stands with the money behind it. Waiting for funds is not an error.',
  values: {
    FUNDED: { description: 'Paid from the available balance; rewards go out now.' },
    AWAITING_FUNDS: { description: 'Accepted, waiting for a top-up; sent automatically once funded (oldest first).' },
    FUNDS_PENDING: { description: 'Accepted, waiting for pending funds to clear.' },
  } as const,
});

const CreateCampaignPayload = builder.objectRef<CreateCampaignPayloadShape>('CreateCampaignPayload').implement({
  fields: (t) => ({
    orderId: t.id({ description: 'The caller id of the accepted order (always present, even if `campaign` fails).', resolve: (p) => p.campaign.id }),
    orderUuid: t.id({ description: 'The uuid of the accepted order.', resolve: (p) => p.campaign.uuid }),
    campaign: t.field({
      type: CampaignRef,
      // Nullable on purpose: the order exists once we answer; if a relation below it (gifts, brands, links)
      // fails upstream, only `campaign` is lost, not the news that the order was accepted.
      nullable: true,
      resolve: (p) => p.campaign,
    }),
    funding: t.field({ type: FundingState, resolve: (p) => p.funding }),
    links: t.stringList({
      nullable: true,
      description:
        'Direct-link orders: one claimable URL per link (empty while the order waits for funds). Short links: see ' +
        'campaign.links. Null when the create was answered with an earlier answer given before the order was ' +
        'funded (a replay): read campaign.links.',
      resolve: (p) => p.links,
    }),
    replayed: t.boolean({ nullable: true, description: REPLAYED, resolve: (p) => p.replayed }),
  }),
});

const ContactInput = builder.inputType('ContactInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    firstName: t.string(),
    lastName: t.string(),
  }),
});

export const RewardChoice = builder.inputType('RewardChoice', {
  description: "What the recipient may choose: exactly one brand, a list of brands, or a region's full catalog.",
  isOneOf: true,
  fields: (t) => ({
    brand: t.string(),
    brands: t.stringList(),
    region: t.string({ description: 'Region name, e.g. USA or Canada: every brand of that region at the price.' }),
  }),
});

const CreateCampaignInput = builder.inputType('CreateCampaignInput', {
  fields: (t) => ({
    id: t.id({ required: true, description: 'Your idempotency key: unique per order, up to 4,096 characters.' }),
    deliveryType: t.field({
      // The one delivery enum of the API (also Campaign.deliveryType); this mutation sends EMAIL or SHORTLINK.
      type: DeliveryType.ref,
      defaultValue: 'EMAIL',
      description: 'EMAIL or SHORTLINK. Direct links: createDirectLinks; embedded: createEmbeddedReward.',
    }),
    priceInCents: t.field({ type: MONEY, required: true, description: 'Face value of each reward.' }),
    reward: t.field({ type: RewardChoice, required: true }),
    contacts: t.field({ type: [ContactInput], description: 'Recipients (email delivery only).' }),
    giftTemplate: t.string({ description: 'Template id; supplies subject and message when they are omitted.' }),
    subject: t.string(),
    message: t.string(),
    linkCount: t.int({ description: 'Number of short links (short-link delivery only).' }),
    expiry: t.field({ type: 'Date', description: 'Last claimable day (Pacific); at most one year out. Omit: never expires.' }),
  }),
});

const CreateDirectLinksInput = builder.inputType('CreateDirectLinksInput', {
  fields: (t) => ({
    id: t.id({ required: true, description: 'Your idempotency key: unique per order, up to 4,096 characters.' }),
    priceInCents: t.field({ type: MONEY, required: true }),
    reward: t.field({ type: RewardChoice, required: true }),
    linkCount: t.int({ required: true }),
    expiry: t.field({ type: 'Date' }),
  }),
});

/**
 * After a write the request's cached reads are stale; the payload must show what the upstream now holds. For a
 * replay that is the read made just before the create (a replay changes nothing), not the earlier answer the
 * upstream repeats; for a new order it is the create's own answer. When that lookup failed, the answer may be
 * such a repeat, so the order is read once more (falling back to the answer if that fails too). Either primes
 * the request's loader.
 */
async function payloadOf({ created, earlier, replayed }: SentCreate<CreatedCampaign>, ctx: GatewayContext): Promise<CreateCampaignPayloadShape> {
  ctx.loaders.forgetAll();
  const current = replayed === null ? await readAgain(created.campaign.id, ctx) : earlier;
  const now = current ?? created.campaign;
  ctx.loaders.campaign.prime(now.id, now).prime(now.uuid, now);
  const funding = current ? fundingNow(created.funding, current) : created.funding;
  // Links exist once an order is funded. A repeated answer given while the order waited for funds carries an
  // empty list; once the order is funded that list is wrong: null (read campaign.links) instead.
  const links = created.funding !== 'FUNDED' && funding === 'FUNDED' ? null : created.directLinks;
  return { campaign: now, funding, links, replayed };
}

/** The order under this id as it stands, or null when it cannot be read (or the read names another order). */
async function readAgain(id: string, ctx: GatewayContext): Promise<Campaign | null> {
  const found = await ctx.loaders.campaign.load(id).catch(() => null);
  return found && found.id === id ? found : null;
}

/**
 * The zod rules see `reward` as an object of three optional keys; GraphQL's @oneOf already guarantees exactly
 * one is set, which is the shape Pothos infers. Only the static type differs, so the cast is safe.
 */
function oneOfReward<I>(schema: z.ZodType): z.ZodType<I> {
  return schema as z.ZodType<I>;
}

const createErrors = [InputValidationError, UpstreamRejected, IdempotencyConflict, OutcomeUnknown, UpstreamUnavailable];

builder.mutationFields((t) => ({
  createCampaign: t.field({
    type: CreateCampaignPayload,
    authScopes: { 'rewards:write': true },
    description: 'Orders rewards delivered by email (default) or as short links.',
    errors: { types: createErrors },
    args: {
      input: t.arg({
        type: CreateCampaignInput,
        required: true,
        validate: { schema: oneOfReward<typeof CreateCampaignInput.$inferInput>(createCampaignInput) },
      }),
    },
    resolve: unavailableAsData(async (_root, { input }, ctx) => {
      const choice = await resolveRewardChoice(input.reward, input.priceInCents, ctx.loaders);
      const shortlinks = input.deliveryType === 'SHORTLINK';
      const sent = await sendCreate(input.id, ctx.loaders, ctx.client, () =>
        ctx.client.createCampaign({
          id: input.id,
          priceInCents: input.priceInCents,
          deliveryType: shortlinks ? 'SHORTLINK' : 'EMAIL',
          ...choice,
          contacts: input.contacts?.map((c) => ({
            email: c.email.trim(),
            firstName: c.firstName ?? undefined,
            lastName: c.lastName ?? undefined,
          })),
          giftTemplate: input.giftTemplate ?? undefined,
          subject: input.subject ?? undefined,
          message: input.message ?? undefined,
          linkCount: input.linkCount ?? undefined,
          expiry: input.expiry ?? undefined,
        }),
      );
      return payloadOf(sent, ctx);
    }),
  }),
  createDirectLinks: t.field({
    type: CreateCampaignPayload,
    authScopes: { 'rewards:write': true },
    description: 'Orders rewards as direct links: one claimable URL per link, returned in `links`.',
    errors: { types: createErrors },
    args: {
      input: t.arg({
        type: CreateDirectLinksInput,
        required: true,
        validate: { schema: oneOfReward<typeof CreateDirectLinksInput.$inferInput>(createDirectLinksInput) },
      }),
    },
    resolve: unavailableAsData(async (_root, { input }, ctx) => {
      const choice = await resolveRewardChoice(input.reward, input.priceInCents, ctx.loaders);
      const sent = await sendCreate(input.id, ctx.loaders, ctx.client, () =>
        ctx.client.createDirectLinks({
          id: input.id,
          priceInCents: input.priceInCents,
          ...choice,
          linkCount: input.linkCount,
          expiry: input.expiry ?? undefined,
        }),
      );
      return payloadOf(sent, ctx);
    }),
  }),
}));
