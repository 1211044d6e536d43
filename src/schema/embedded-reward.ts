import { IdempotencyConflict, InputValidationError, OutcomeUnknown, UpstreamRejected, UpstreamUnavailable } from '../orders/errors.js';
import { unavailableAsData } from '../orders/upstream-rejections.js';
import { createEmbeddedRewardInput } from '../orders/order-rules.js';
import { resolveRewardChoice } from '../orders/reward-choice.js';
import { sendCreate } from '../orders/replays.js';
import { builder } from './builder.js';
import { MONEY } from './money.js';
import { CampaignRef } from './refs.js';
import { REPLAYED } from './replayed.js';

// One brand, one reward, claimed automatically: the caller embeds the returned link in its own page.

interface EmbeddedRewardPayloadShape {
  campaignUuid: string;
  rewardLink: string;
  replayed: boolean | null;
}

const CreateEmbeddedRewardPayload = builder.objectRef<EmbeddedRewardPayloadShape>('CreateEmbeddedRewardPayload').implement({
  fields: (t) => ({
    rewardLink: t.exposeString('rewardLink', { description: 'The reward, ready to embed.' }),
    campaign: t.field({
      type: CampaignRef,
      // Nullable on purpose: if reading the order back fails, the caller must still get its reward link.
      nullable: true,
      // Read through the loader: primed for a replay, else one GET shared with the rest of the operation.
      resolve: (p, _args, ctx) => ctx.loaders.campaign.load(p.campaignUuid),
    }),
    replayed: t.boolean({ nullable: true, description: REPLAYED, resolve: (p) => p.replayed }),
  }),
});

const CreateEmbeddedRewardInput = builder.inputType('CreateEmbeddedRewardInput', {
  fields: (t) => ({
    id: t.id({ required: true, description: 'Your idempotency key: unique per order, up to 4,096 characters.' }),
    brand: t.string({ required: true, description: 'An embeddable brand code.' }),
    priceInCents: t.field({ type: MONEY, required: true }),
  }),
});

builder.mutationField('createEmbeddedReward', (t) =>
  t.field({
    type: CreateEmbeddedRewardPayload,
    authScopes: { 'rewards:write': true },
    errors: { types: [InputValidationError, UpstreamRejected, IdempotencyConflict, OutcomeUnknown, UpstreamUnavailable] },
    args: {
      input: t.arg({ type: CreateEmbeddedRewardInput, required: true, validate: { schema: createEmbeddedRewardInput } }),
    },
    resolve: unavailableAsData(async (_root, { input }, ctx) => {
      await resolveRewardChoice({ brand: input.brand }, input.priceInCents, ctx.loaders, {
        path: ['input'],
        embeddable: true,
      });
      const { created, earlier, replayed } = await sendCreate(input.id, ctx.loaders, ctx.client, () =>
        ctx.client.createEmbeddedReward({ id: input.id, brandCode: input.brand, priceInCents: input.priceInCents }),
      );
      ctx.loaders.forgetAll();
      // A replay changed nothing: the read made just before the create is the order as it stands.
      if (earlier) ctx.loaders.campaign.prime(earlier.uuid, earlier);
      return { campaignUuid: created.campaign.uuid, rewardLink: created.giftLink, replayed };
    }),
  }),
);
