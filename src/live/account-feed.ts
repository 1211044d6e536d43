// The feed of every reward of the account (giftStatusChanged without a campaign).
//
// Why not only a watermark on the upstream's date filters: created_date, delivery_date and redeemed_date catch
// new rewards, deliveries and claims, but a cancel, an expiry or a bounce moves no date at all, and whether a
// resend moves delivery_date is not documented. Counting probes (total_count per status) would see that
// something left a status but not which reward, and cannot see a second resend of the same reward. So:
//   - every poll pages through the rewards that can still change, GET /gifts?status=SENT_AND_REDEEMABLE:
//     each of those changes happens to an open reward, so it shows there (bounce, resend) or as the reward
//     leaving the list (claim, cancel, expiry), after which it is read again (refreshGifts). The cost follows
//     the outstanding rewards, never the account's history;
//   - a moving watermark on created_date, GET /gifts?created_date_greater_than=…, adds rewards that are born
//     final (an embedded reward is claimed on creation) or that settle before the next poll sees them open.
//     The watermark is the newest created_date seen, on the upstream's own clock (never ours, so skew cannot
//     open a gap), queried with an overlap because the filter is strict and dates have one-second resolution;
//     rewards in the overlap are recognised by uuid, not reported twice. The window only moves when newer
//     rewards arrive, so a big last batch (an order of 10,000 links) would stay in it: after the baseline the
//     window is first counted (limit=1) and read only when its total differs from what the feed knows of it.
//     Rewards never leave a created-date window, so an equal count means the same rewards.
// A quiet poll therefore costs one count plus one request per 100 open rewards.

import type { Gift, GiftQuery, UpstreamClient } from '../upstream/types.js';
import { isFinal, OPEN_STATUS } from '../orders/reward-state.js';
import { GiftBook, type GiftChange } from './gift-diff.js';
import { listAllGifts } from '../upstream/gift-pages.js';
import { refreshGifts } from './gift-pages.js';
import type { Applied, Feed, PollOutcome } from './feed.js';

/** Re-read this far behind the watermark: second resolution, and rewards stamped slightly before they show. */
export const WATERMARK_OVERLAP_MS = 10_000;

export type AccountEvent = { topic: 'gift'; change: GiftChange };

export class AccountFeed implements Feed<AccountEvent> {
  private readonly book = new GiftBook();
  /** Newest created_date seen; null while the account had no rewards at the last poll. */
  private watermark: Date | null = null;

  constructor(private readonly client: UpstreamClient) {}

  async poll(signal: AbortSignal, baseline: boolean): Promise<PollOutcome<AccountEvent>> {
    // The baseline starts the watermark at the newest reward. Later, no watermark means the account was empty
    // at the last poll, so every reward there is now is new.
    const since = baseline ? await this.newestCreatedDate(signal) : this.watermark;
    const window: GiftQuery = since ? { createdDateGreaterThan: new Date(since.getTime() - WATERMARK_OVERLAP_MS) } : {};
    const recent = baseline && since === null ? [] : await this.readWindow(window, baseline, signal);
    const open = await listAllGifts(this.client, { status: OPEN_STATUS }, { signal });
    const fresh = new Map<string, Gift>();
    for (const gift of [...recent, ...open]) fresh.set(gift.uuid, gift);
    const missing = this.book.unsettled().filter((gift) => !fresh.has(gift.uuid));
    const refreshed = missing.length > 0 ? await refreshGifts(this.client, missing, signal) : { found: [], gone: [] };

    // Everything is read; from here on the state changes synchronously, so a failed poll leaves it untouched.
    const events: AccountEvent[] = [];
    const now = new Date();
    for (const gift of [...fresh.values(), ...refreshed.found]) {
      const change = this.book.observe(gift, now);
      if (change) events.push({ topic: 'gift', change });
    }
    for (const uuid of refreshed.gone) this.book.forget(uuid);
    this.watermark = newest(since, fresh.values());
    const keepFrom = this.watermark ? this.watermark.getTime() - WATERMARK_OVERLAP_MS : Number.NEGATIVE_INFINITY;
    // Settled rewards are kept only while the overlap can list them again.
    this.book.retain((gift) => !isSettledBefore(gift, keepFrom));
    return { events: baseline ? [] : events, ended: [] };
  }

  apply(event: AccountEvent): Applied {
    const applied = this.book.advance(event.change);
    if (applied === 'applied') this.watermark = newest(this.watermark, [event.change.gift]);
    return applied;
  }

  snapshot(): { gifts: Gift[]; watermark: Date | null } {
    return { gifts: this.book.all(), watermark: this.watermark };
  }

  restore(state: unknown): void {
    const { gifts, watermark } = state as { gifts: Gift[]; watermark: Date | null };
    this.book.load(gifts);
    this.watermark = watermark;
  }

  /** The account's rewards that can still change, and recent ones, as of the last poll. */
  current(): AccountEvent[] {
    const now = new Date();
    return this.book.all().map((gift) => ({ topic: 'gift', change: { gift, previous: null, changedAt: now } }));
  }

  /** The window's rewards: all of them for the baseline, later only when its count shows something new. */
  private async readWindow(window: GiftQuery, baseline: boolean, signal: AbortSignal): Promise<Gift[]> {
    if (!baseline) {
      const count = await this.client.listGifts({ ...window, limit: 1 }, { signal });
      const after = window.createdDateGreaterThan?.getTime() ?? Number.NEGATIVE_INFINITY;
      const known = this.book.all().filter((gift) => (gift.createdDate?.getTime() ?? Number.NEGATIVE_INFINITY) > after);
      if (count.totalCount === known.length) return [];
    }
    return listAllGifts(this.client, window, { signal });
  }

  private async newestCreatedDate(signal: AbortSignal): Promise<Date | null> {
    // The list is newest first by default; if it were not, the watermark would only start lower and the
    // baseline read a longer window: still correct.
    const page = await this.client.listGifts({ limit: 1 }, { signal });
    return page.items[0]?.createdDate ?? null;
  }
}

function newest(since: Date | null, gifts: Iterable<Gift>): Date | null {
  let max = since?.getTime() ?? Number.NEGATIVE_INFINITY;
  for (const gift of gifts) if (gift.createdDate && gift.createdDate.getTime() > max) max = gift.createdDate.getTime();
  return Number.isFinite(max) ? new Date(max) : null;
}

function isSettledBefore(gift: Gift, from: number): boolean {
  return isFinal(gift) && (gift.createdDate?.getTime() ?? Number.NEGATIVE_INFINITY) < from;
}
