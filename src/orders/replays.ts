import type { Loaders } from '../graph/loaders.js';
import type { Campaign, Funding, UpstreamClient } from '../upstream/types.js';
import { rejectionsAsData, unknownCreate } from './upstream-rejections.js';

// Re-sending a create with the same caller id makes the upstream answer with the original response, byte for
// byte: the order as it stood then (say API_CREATING, waiting for funds), not as it stands now. The upstream
// does not say that an answer is a replay, so the gateway looks the id up before sending the create: an order
// already there means the answer comes from an earlier request, and that read is also the order's current
// state. One GET, primed into the request's loader so the payload and the rest of the operation share it, and
// sent at a write's priority in the upstream budget as every call of a mutation is (use-write-priority.ts).

/** What the upstream held under a create's caller id just before it was sent. */
type OrderBefore =
  | { known: true; campaign: Campaign | null }
  /** The lookup failed: the create goes ahead, and whether it was a replay stays unknown. */
  | { known: false };

async function orderBefore(id: string, loaders: Loaders, client: UpstreamClient): Promise<OrderBefore> {
  try {
    const campaign = await client.getCampaign(id);
    if (campaign) loaders.campaign.prime(id, campaign);
    // The lookup also takes a uuid: an id that is another order's uuid finds that order, which says nothing
    // about this id (and must never be shown as this create's order).
    if (campaign && campaign.id !== id) return { known: false };
    return { known: true, campaign };
  } catch {
    return { known: false };
  }
}

export interface SentCreate<T> {
  created: T;
  /** True when the create was answered from an earlier request, null when that could not be told. */
  replayed: boolean | null;
  /** For a replay, the order as it stands now (read just before the create); otherwise null. */
  earlier: Campaign | null;
}

/**
 * How every create is sent: its caller id looked up first (the only way to tell a replay), then the write, the
 * upstream's refusals turned into typed errors and a lost answer into OutcomeUnknown (the same id makes a
 * retry safe).
 */
export async function sendCreate<T>(id: string, loaders: Loaders, client: UpstreamClient, send: () => Promise<T>): Promise<SentCreate<T>> {
  const before = await orderBefore(id, loaders, client);
  const created = await rejectionsAsData(send, { id, unknown: unknownCreate });
  return before.known ? { created, replayed: before.campaign !== null, earlier: before.campaign } : { created, replayed: null, earlier: null };
}

/** A replayed order's funding as it stands now: the earlier answer's, unless the order has been funded since. */
export function fundingNow(answered: Funding, now: Campaign): Funding {
  if (now.status !== 'AWAITING_FUNDS') return 'FUNDED';
  return answered === 'FUNDS_PENDING' ? 'FUNDS_PENDING' : 'AWAITING_FUNDS';
}
