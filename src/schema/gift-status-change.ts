import { gatewayError } from '../errors/gateway-error.js';
import { ref } from '../orders/order-rules.js';
import type { GiftStatusChange } from '../live/live.js';
import { builder } from './builder.js';
import { DeliveryStatus, GiftStatus } from './enums.js';
import { AFTER_DESCRIPTION, CURSOR_DESCRIPTION } from './cursor-docs.js';
import { GiftRef } from './refs.js';

export const GiftStatusChangeRef = builder.objectRef<GiftStatusChange>('GiftStatusChange').implement({
  description: 'A reward whose claim status, delivery status or resend count changed, with the values before.',
  fields: (t) => ({
    gift: t.field({ type: GiftRef, description: 'The reward as it is now.', resolve: (change) => change.gift }),
    previousStatus: t.field({
      type: GiftStatus.ref,
      nullable: true,
      description: 'Null when the reward is new to the subscription (it appeared, or `includeCurrent`).',
      resolve: (change) => (change.previous ? GiftStatus.read(change.previous.status) : null),
    }),
    previousDeliveryStatus: t.field({
      type: DeliveryStatus.ref,
      nullable: true,
      resolve: (change) => (change.previous ? DeliveryStatus.read(change.previous.deliveryStatus) : null),
    }),
    previousRedeliveryCount: t.int({
      nullable: true,
      resolve: (change) => change.previous?.redeliveryCount ?? null,
    }),
    changedAt: t.expose('changedAt', {
      type: 'DateTime',
      description:
        'When the gateway saw the change, at most one poll interval after it happened: the reward API ' + 'records no time for most changes.',
    }),
    cursor: t.exposeString('cursor', { description: CURSOR_DESCRIPTION }),
  }),
});

builder.subscriptionField('giftStatusChanged', (t) =>
  t.field({
    type: GiftStatusChangeRef,
    authScopes: { 'rewards:read': true },
    description:
      'Changes of the rewards of one order (caller id or uuid), or of the whole account when `campaign` is ' +
      'omitted. Completes once the order is created and every reward is final (redeemed, expired, cancelled). ' +
      'With `includeCurrent`, first the current state: every reward of the order, or for the account the ' +
      'rewards that can still change and recently created ones.',
    args: {
      campaign: t.arg.id({ description: 'Caller id or uuid of the order; omit for the whole account.', validate: { schema: ref } }),
      includeCurrent: t.arg.boolean({ defaultValue: false }),
      after: t.arg.string({ description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, { campaign, includeCurrent, after }, ctx) => {
      const changes = await ctx.live.giftChanges({
        campaign: campaign ?? null,
        includeCurrent: !after && (includeCurrent ?? false),
        lookup: (ref) => ctx.loaders.campaign.load(ref),
        after: after ?? null,
        watcher: ctx.caller.name,
      });
      if (!changes) throw gatewayError('NOT_FOUND', { ref: String(campaign) });
      return changes;
    },
    resolve: (change, _args, ctx) => {
      // One context serves the whole subscription, so each event brings its own loaders (else gift.campaign
      // would keep showing what the first event loaded), shared with every subscriber of that event.
      ctx.loaders = ctx.eventLoaders(change.gift);
      return change;
    },
  }),
);
