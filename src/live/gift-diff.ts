// What counts as a change of a reward, and the last known state of the rewards a feed watches.

import { isFinal } from '../orders/reward-state.js';
import type { Gift } from '../upstream/types.js';
import type { Applied } from './feed.js';

/** The fields whose change is an event. */
export interface GiftState {
  status: string;
  deliveryStatus: string;
  redeliveryCount: number;
}

export interface GiftChange {
  gift: Gift;
  /** Null when the reward is new to the feed (it appeared, or this is the current state on subscribe). */
  previous: GiftState | null;
  /** When the gateway saw the change: the upstream records no time for most changes (bounce, cancel, expiry). */
  changedAt: Date;
}

function stateOf(gift: Gift): GiftState {
  return { status: gift.status, deliveryStatus: gift.deliveryStatus, redeliveryCount: gift.redeliveryCount };
}

function sameState(a: GiftState, b: GiftState): boolean {
  return a.status === b.status && a.deliveryStatus === b.deliveryStatus && a.redeliveryCount === b.redeliveryCount;
}

/** The last known record of each reward a feed watches, and the change each fresh record makes. */
export class GiftBook {
  private readonly gifts = new Map<string, Gift>();

  /** Records a fresh copy; returns the change it makes, or null when status, delivery and resends are the same. */
  observe(gift: Gift, at: Date): GiftChange | null {
    const known = this.gifts.get(gift.uuid);
    this.gifts.set(gift.uuid, gift);
    if (known && sameState(stateOf(known), stateOf(gift))) return null;
    return { gift, previous: known ? stateOf(known) : null, changedAt: at };
  }

  /** Takes a change another poll found, if it starts from the state the book shows (see feed.ts Applied). */
  advance(change: GiftChange): Applied {
    const known = this.gifts.get(change.gift.uuid);
    if (known && sameState(stateOf(known), stateOf(change.gift))) return 'seen';
    if (change.previous === null ? known !== undefined : !known || !sameState(stateOf(known), change.previous)) return 'unsure';
    this.gifts.set(change.gift.uuid, change.gift);
    return 'applied';
  }

  forget(uuid: string): void {
    this.gifts.delete(uuid);
  }

  /** Rewards that can still change; final ones are no longer watched, a status the gateway does not know is. */
  unsettled(): Gift[] {
    return [...this.gifts.values()].filter((gift) => !isFinal(gift));
  }

  all(): Gift[] {
    return [...this.gifts.values()];
  }

  /** Replaces what the book knows (a snapshot restored). */
  load(gifts: Gift[]): void {
    this.gifts.clear();
    for (const gift of gifts) this.gifts.set(gift.uuid, gift);
  }

  /** Keeps only the rewards `keep` accepts. */
  retain(keep: (gift: Gift) => boolean): void {
    for (const [uuid, gift] of this.gifts) if (!keep(gift)) this.gifts.delete(uuid);
  }
}
