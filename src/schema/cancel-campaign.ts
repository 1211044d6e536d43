import { cancelUnredeemed, type CancelOutcome } from '../orders/cancel-campaign.js';
import { NotCancellable, NotFound, UpstreamUnavailable } from '../orders/errors.js';
import { unavailableAsData } from '../orders/upstream-rejections.js';
import { ref } from '../orders/order-rules.js';
import type { Campaign } from '../upstream/types.js';
import { builder } from './builder.js';
import { CampaignStatus, DeliveryType } from './enums.js';
import { CampaignRef } from './refs.js';

interface CancelCampaignPayloadShape extends CancelOutcome {
  campaignUuid: string;
}

const CancelCampaignPayload = builder.objectRef<CancelCampaignPayloadShape>('CancelCampaignPayload').implement({
  fields: (t) => ({
    campaign: t.field({
      type: CampaignRef,
      nullable: true,
      description: 'The order as it stands after the cancels.',
      resolve: (p, _args, ctx) => ctx.loaders.campaign.load(p.campaignUuid),
    }),
    cancelled: t.exposeInt('cancelled', { description: 'Rewards this call cancelled.' }),
    alreadyFinal: t.exposeInt('alreadyFinal', { description: 'Rewards already redeemed, expired or cancelled.' }),
    failed: t.exposeIDList('failed', { description: 'Uuids of rewards whose cancel failed; call again to retry them.' }),
  }),
});

builder.mutationField('cancelCampaign', (t) =>
  t.field({
    type: CancelCampaignPayload,
    authScopes: { 'rewards:write': true },
    description: 'Cancels every unredeemed reward of an order and returns their funds. Safe to call again.',
    errors: { types: [NotFound, NotCancellable, UpstreamUnavailable] },
    args: { ref: t.arg.id({ required: true, description: 'Caller id or uuid of the order.', validate: { schema: ref } }) },
    resolve: unavailableAsData(async (_root, { ref }, ctx) => {
      const campaign: Campaign | null = await ctx.loaders.campaign.load(ref);
      if (!campaign) throw new NotFound(ref, 'order');
      if (DeliveryType.read(campaign.deliveryType) === 'EMBEDDED') {
        throw new NotCancellable('Embedded rewards are claimed at once and cannot be cancelled.');
      }
      // An order still waiting for funds (or being created) has no rewards yet: cancelling "all of them"
      // would report success and the order would still go out once funded.
      if (CampaignStatus.read(campaign.status) !== 'CREATED') {
        throw new NotCancellable(
          `The order is ${campaign.status}: its rewards do not exist yet, so none can be cancelled. ` +
            'It will be sent once funded; cancel it after that.',
        );
      }
      const outcome = await cancelUnredeemed(ctx.client, campaign.uuid);
      ctx.loaders.forgetAll();
      return { ...outcome, campaignUuid: campaign.uuid };
    }),
  }),
);
