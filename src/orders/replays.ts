import type { Loaders } from '../loaders.js';
import type { Campaign, Funding } from '../upstream/types.js';

// Re-sending a create with the same caller id makes the upstream answer with the original response, byte for
// byte: the order as it stood then (say API_CREATING, waiting for funds), not as it stands now. The upstream
// does not say that an answer is a replay, so the gateway looks the id up before sending the create: an order
// already there means the answer comes from an earlier request, and that read is also the order's current
// state. One GET through the request's loader, so the payload and the rest of the operation share it.

/** What the upstream held under a create's caller id just before it was sent. */
export type OrderBefore =
  | { known: true; campaign: Campaign | null }
  /** The lookup failed: the create goes ahead, and whether it was a replay stays unknown. */
  | { known: false };

export async function orderBefore(id: string, loaders: Loaders): Promise<OrderBefore> {
  try {
    const campaign = await loaders.campaign.load(id);
    // The lookup also takes a uuid: an id that is another order's uuid finds that order, which says nothing
    // about this id (and must never be shown as this create's order).
    if (campaign && campaign.id !== id) return { known: false };
    return { known: true, campaign };
  } catch {
    return { known: false };
  }
}

/** True when the create was answered from an earlier request, null when that could not be told. */
export function wasReplayed(before: OrderBefore): boolean | null {
  return before.known ? before.campaign !== null : null;
}

/** A replayed order's funding as it stands now: the earlier answer's, unless the order has been funded since. */
export function fundingNow(answered: Funding, now: Campaign): Funding {
  if (now.status !== 'AWAITING_FUNDS') return 'FUNDED';
  return answered === 'FUNDS_PENDING' ? 'FUNDS_PENDING' : 'AWAITING_FUNDS';
}
