import { NotCancellable, NotFound, OutcomeUnknown, UpstreamRejected, UpstreamUnavailable } from '../orders/errors.js';
import { finalStateName, isCancelled } from '../orders/reward-state.js';
import { rejectionsAsData, unavailableAsData } from '../orders/upstream-rejections.js';
import { ref } from '../orders/order-rules.js';
import type { Gift } from '../upstream/types.js';
import { builder } from './builder.js';
import { GiftRef } from './refs.js';

// Resend and cancel one reward.

const GiftPayload = builder.objectRef<{ gift: Gift }>('GiftPayload').implement({
  fields: (t) => ({ gift: t.field({ type: GiftRef, resolve: (p) => p.gift }) }),
});

builder.mutationFields((t) => ({
  resendGift: t.field({
    type: GiftPayload,
    authScopes: { 'rewards:write': true },
    description:
      'Sends the reward email again (clears an undeliverable state). Not idempotent: every call sends an email, ' +
      'so the gateway never retries it on its own.',
    errors: { types: [NotFound, UpstreamRejected, OutcomeUnknown, UpstreamUnavailable] },
    args: { uuid: t.arg.id({ required: true, validate: { schema: ref } }) },
    resolve: unavailableAsData(async (_root, { uuid }, ctx) => {
      const gift = await rejectionsAsData(() => ctx.client.resendGift(uuid), {
        notFound: { ref: uuid, what: 'reward' },
        // Every resend is another email: whether this one went out shows in the count, not in a repeat.
        unknown: {
          what: 'the email may or may not have been sent again',
          retrySameIdIsSafe: false,
          checkBefore: `gift(uuid: ${JSON.stringify(uuid)}) { redeliveryCount }`,
        },
      });
      ctx.loaders.forgetAll();
      return { gift };
    }),
  }),
  cancelGift: t.field({
    type: GiftPayload,
    authScopes: { 'rewards:write': true },
    description: 'Cancels an unredeemed reward and returns its funds. Cancelling a cancelled reward returns it unchanged.',
    errors: { types: [NotFound, NotCancellable, UpstreamRejected, OutcomeUnknown, UpstreamUnavailable] },
    args: { uuid: t.arg.id({ required: true, validate: { schema: ref } }) },
    resolve: unavailableAsData(async (_root, { uuid }, ctx) => {
      const current = await ctx.loaders.gift.load(uuid);
      if (!current) throw new NotFound(uuid, 'reward');
      if (isCancelled(current)) return { gift: current };
      const final = finalStateName(current);
      if (final) throw new NotCancellable(`The reward is ${final}; only unredeemed rewards can be cancelled.`);
      const gift = await rejectionsAsData(() => ctx.client.cancelGift(uuid), {
        notFound: { ref: uuid, what: 'reward' },
        cancelling: true,
        // Cancelling a cancelled reward answers it unchanged, so the repeat is harmless.
        unknown: { what: 'the reward may or may not have been cancelled', retrySameIdIsSafe: true },
      });
      ctx.loaders.forgetAll();
      return { gift };
    }),
  }),
}));
