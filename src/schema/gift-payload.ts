import { rejectionsAsData } from '../orders/upstream-rejections.js';
import { ref } from '../orders/order-rules.js';
import type { Gift } from '../upstream/types.js';
import { builder } from './builder.js';
import { GiftStatus } from './enums.js';
import { NotCancellable, NotFound, UpstreamRejected } from './errors.js';
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
    errors: { types: [NotFound, UpstreamRejected], directResult: true, union: { name: 'ResendGiftResult' } },
    args: { uuid: t.arg.id({ required: true, validate: { schema: ref } }) },
    resolve: async (_root, { uuid }, ctx) => {
      const gift = await rejectionsAsData(() => ctx.client.resendGift(uuid), { notFound: { ref: uuid, what: 'reward' } });
      ctx.loaders.forgetAll();
      return { gift };
    },
  }),
  cancelGift: t.field({
    type: GiftPayload,
    authScopes: { 'rewards:write': true },
    description: 'Cancels an unredeemed reward and returns its funds. Cancelling a cancelled reward returns it unchanged.',
    errors: {
      types: [NotFound, NotCancellable, UpstreamRejected],
      directResult: true,
      union: { name: 'CancelGiftResult' },
    },
    args: { uuid: t.arg.id({ required: true, validate: { schema: ref } }) },
    resolve: async (_root, { uuid }, ctx) => {
      const current = await ctx.loaders.gift.load(uuid);
      if (!current) throw new NotFound(uuid, 'reward');
      const status = GiftStatus.read(current.status);
      if (status === 'CANCELLED') return { gift: current };
      if (status === 'REDEEMED' || status === 'EXPIRED') {
        throw new NotCancellable(`The reward is ${status.toLowerCase()}; only unredeemed rewards can be cancelled.`);
      }
      const gift = await rejectionsAsData(() => ctx.client.cancelGift(uuid), {
        notFound: { ref: uuid, what: 'reward' },
        cancelling: true,
      });
      ctx.loaders.forgetAll();
      return { gift };
    },
  }),
}));
