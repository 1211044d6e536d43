// The feed of one order: its status (AWAITING_FUNDS → CREATED) and the status of each of its rewards.
//
// Requests per poll:
//   - GET /campaign/{uuid}, only until the order is CAMPAIGN_CREATED (no status follows that one);
//   - until then, GET /gifts?campaign_uuid=… paged through (rewards come into being while the order is being
//     created, and one could appear and be cancelled between two polls);
//   - from the first poll that saw CAMPAIGN_CREATED on, only GET /gifts?campaign_uuid=…&status=SENT_AND_REDEEMABLE:
//     every change a reward can still undergo (resend, bounce, claim, cancel, expiry) happens to an open one;
//   - a reward that was open and is missing from that list changed status: it is read again (refreshGifts).
// The feed ends its `gift` topic once the order is created and none of its rewards can change any more.

import type { Campaign, Gift, UpstreamClient } from '../upstream/types.js';
import { OPEN_STATUS } from '../orders/reward-state.js';
import { GiftBook, type GiftChange } from './gift-diff.js';
import { listAllGifts } from '../upstream/gift-pages.js';
import { refreshGifts } from './gift-pages.js';
import type { Applied, Feed, PollOutcome } from './feed.js';
import type { Found } from '../cache/cached-client.js';

/** Drops what a poll found changed from the read cache (cache/cached-client.ts dropFound). */
export type DropFound = (found: Found) => Promise<void>;

export const CAMPAIGN_CREATED = 'CAMPAIGN_CREATED';

export type CampaignEvent =
  | { topic: 'gift'; change: GiftChange }
  | { topic: 'campaign'; campaign: Campaign; previousStatus: string; changedAt: Date };

interface CampaignFeedState {
  campaign: Campaign | null;
  gifts: Gift[];
  allRewardsKnown: boolean;
}

export class CampaignGoneError extends Error {
  constructor(uuid: string) {
    super(`The upstream no longer knows campaign ${uuid}.`);
    this.name = 'CampaignGoneError';
  }
}

export class CampaignFeed implements Feed<CampaignEvent> {
  private campaign: Campaign | null = null;
  private readonly book = new GiftBook();
  /** Set by the first full listing made after the order was seen created: no reward appears after that. */
  private allRewardsKnown = false;

  /** Restored from a snapshot (another poller's, or this replica's view) and not polled since. */
  private restored = false;

  constructor(
    private readonly client: UpstreamClient,
    readonly uuid: string,
    private readonly dropFound?: DropFound,
  ) {}

  async poll(signal: AbortSignal, baseline: boolean): Promise<PollOutcome<CampaignEvent>> {
    const settled = this.allRewardsKnown && this.campaign !== null;
    const campaign = settled ? this.campaign! : await this.client.getCampaign(this.uuid, { signal });
    if (!campaign) throw new CampaignGoneError(this.uuid);
    const fullListing = !this.allRewardsKnown;
    const listed = await listAllGifts(this.client, fullListing ? { campaignUuid: this.uuid } : { campaignUuid: this.uuid, status: OPEN_STATUS }, {
      signal,
    });
    const listedIds = new Set(listed.map((gift) => gift.uuid));
    const missing = this.book.unsettled().filter((gift) => !listedIds.has(gift.uuid));
    const refreshed = missing.length > 0 ? await refreshGifts(this.client, missing, signal) : { found: [], gone: [] };

    // Everything is read; from here on the state changes synchronously, so a failed poll leaves it untouched.
    const events: CampaignEvent[] = [];
    const now = new Date();
    if (this.campaign && campaign.status !== this.campaign.status) {
      events.push({ topic: 'campaign', campaign, previousStatus: this.campaign.status, changedAt: now });
    }
    this.campaign = campaign;
    for (const gift of [...listed, ...refreshed.found]) {
      const change = this.book.observe(gift, now);
      if (change) events.push({ topic: 'gift', change });
    }
    for (const uuid of refreshed.gone) this.book.forget(uuid);

    const created = campaign.status === CAMPAIGN_CREATED;
    if (created && fullListing) this.allRewardsKnown = true;
    const ended: CampaignEvent['topic'][] = [];
    if (created) ended.push('campaign');
    if (this.allRewardsKnown && this.book.unsettled().length === 0) ended.push('gift');
    // The first poll after a snapshot: this replica's client never read what the changes are against.
    const restored = this.restored;
    this.restored = false;
    if (restored && !baseline && events.length > 0 && this.dropFound) {
      await this.dropFound({
        gifts: events.flatMap((e) => (e.topic === 'gift' ? [e.change.gift] : [])),
        campaigns: events.flatMap((e) => (e.topic === 'campaign' ? [e.campaign] : [])),
      });
    }
    return { events: baseline ? [] : events, ended };
  }

  apply(event: CampaignEvent): Applied {
    if (event.topic === 'gift') return this.book.advance(event.change);
    if (this.campaign?.status === event.campaign.status) return 'seen';
    if (this.campaign && this.campaign.status !== event.previousStatus) return 'unsure';
    this.campaign = event.campaign;
    return 'applied';
  }

  snapshot(): CampaignFeedState {
    return { campaign: this.campaign, gifts: this.book.all(), allRewardsKnown: this.allRewardsKnown };
  }

  restore(state: unknown): void {
    const { campaign, gifts, allRewardsKnown } = state as CampaignFeedState;
    this.campaign = campaign;
    this.book.load(gifts);
    this.allRewardsKnown = allRewardsKnown;
    this.restored = true;
  }

  current(topic: CampaignEvent['topic']): CampaignEvent[] {
    if (topic !== 'gift') return [];
    const now = new Date();
    return this.book.all().map((gift: Gift) => ({ topic: 'gift', change: { gift, previous: null, changedAt: now } }));
  }
}
