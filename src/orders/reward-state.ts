import type { Gift } from '../upstream/types.js';

// Where a reward stands in its claim lifecycle, judged from the raw claim status (the upstream client already
// folds GIVER_CANCELED into GIVER_CANCELLED). One rule for everything that asks: the live feeds (stop watching a
// final reward), cancelGift (refuse a final one without a call) and cancelCampaign (which rewards it cancels
// and which it counts as already final).
//
// A status the gateway does not know is not final. The two mistakes are not alike: calling an open reward final
// stops its events and leaves it uncancelled while cancelCampaign reports it "already final" (its money not
// returned, and misreported); calling a final reward open costs one more lookup per poll, or one cancel the
// upstream refuses, and that refusal reaches the caller. So an unknown status is watched, and a cancel of it is
// left to the upstream to decide.

/** The one claim status from which a reward can still change (resend, bounce, claim, cancel, expiry). */
export const OPEN_STATUS = 'SENT_AND_REDEEMABLE';

const CANCELLED_STATUS = 'GIVER_CANCELLED';

/** Claim statuses a reward never leaves, each with how a message names it. TO_CHARITY is deprecated upstream. */
const FINAL_STATUSES: ReadonlyMap<string, string> = new Map([
  ['REDEEMED', 'redeemed'],
  ['EXPIRED', 'expired'],
  [CANCELLED_STATUS, 'cancelled'],
  ['TO_CHARITY', 'given to charity'],
]);

type WithStatus = Pick<Gift, 'status'>;

/** The reward can no longer change. False for a status the gateway does not know. */
export function isFinal(gift: WithStatus): boolean {
  return FINAL_STATUSES.has(gift.status);
}

export function isCancelled(gift: WithStatus): boolean {
  return gift.status === CANCELLED_STATUS;
}

/** How a message names a final reward's state ("redeemed"), or null when the reward is not final. */
export function finalStateName(gift: WithStatus): string | null {
  return FINAL_STATUSES.get(gift.status) ?? null;
}
