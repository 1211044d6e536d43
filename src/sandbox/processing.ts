// The sandbox "tick": run at the arrival of every request (reward API, control API, even unknown paths), it
// does what production does in the background between two calls: finish creating funded orders (emails go
// out, short links become readable) and expire rewards whose expiry day has ended on the sandbox clock.
import { refund } from './funds.js';
import type { SandboxState } from './state.js';

export function tick(state: SandboxState): void {
  const now = state.clock.now();
  for (const order of state.unprocessed) {
    order.processed = true;
    order.status = 'CAMPAIGN_CREATED';
    for (const gift of order.gifts) {
      if (gift.deliveryStatus === 'UNSENT' && gift.status === 'SENT_AND_REDEEMABLE') {
        gift.deliveryStatus = 'DELIVERED';
        gift.deliveredAt = now;
      }
    }
  }
  state.unprocessed = [];
  expireDue(state, now);
}

function expireDue(state: SandboxState, now: Date): void {
  for (const order of state.ordersByUuid.values()) {
    if (!order.expiresAt || order.expiresAt > now) continue;
    for (const gift of order.gifts) {
      if (gift.status === 'SENT_AND_REDEEMABLE') {
        gift.status = 'EXPIRED';
        refund(state, gift);
      }
    }
  }
}
