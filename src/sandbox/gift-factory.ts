// Turns a funded order into its rewards: one per accepted contact (email), per link, or one embedded reward.
import { randomBytes, randomUUID } from 'node:crypto';
import { ACCOUNT, REWARD_URL } from './account.js';
import { costPerGift } from './fees.js';
import { nextSeq, type Gift, type Order, type SandboxState } from './state.js';

const linkPath = { SERVICE_EMAIL: null, SHORTLINK: 's', DIRECT_LINK: 'r', EMBEDDED: 'e' } as const;

export function createGifts(state: SandboxState, order: Order): void {
  const now = state.clock.now();
  const cost = costPerGift(order.fees);
  const embedded = order.deliveryType === 'EMBEDDED';
  const email = order.deliveryType === 'SERVICE_EMAIL';
  const path = linkPath[order.deliveryType];
  for (let i = 0; i < order.giftCount; i++) {
    const recipient = order.recipients?.[i] ?? null;
    const gift: Gift = {
      seq: nextSeq(state),
      uuid: randomUUID(),
      order,
      status: embedded ? 'REDEEMED' : 'SENT_AND_REDEEMABLE',
      deliveryStatus: email ? 'UNSENT' : 'LINKCREATED',
      costInCents: cost,
      // A single-brand order's reward has its brand from the start; otherwise the recipient picks one.
      brandCode: order.brandCodes.length === 1 ? order.brandCodes[0]! : null,
      recipientEmail: recipient?.email ?? null,
      recipientName: recipient?.name ?? null,
      deliveredTo: email ? ACCOUNT.ownerEmail : null,
      redeliveryCount: 0,
      createdAt: now,
      deliveredAt: email ? null : now,
      redeemedAt: embedded ? now : null,
      link: path ? `${REWARD_URL}/${path}/${randomBytes(12).toString('base64url')}` : null,
    };
    order.gifts.push(gift);
    state.gifts.set(gift.uuid, gift);
  }
}
