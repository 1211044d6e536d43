// What subscriptions ask of the live hub, in the gateway's terms: one gateway creates one Live, shared by
// every request's context. Each method returns the async iterator a subscription resolver hands to GraphQL.

import type { Campaign, Funds, UpstreamClient } from '../upstream/types.js';
import { AccountFeed, type AccountEvent } from './account-feed.js';
import { CampaignFeed, type CampaignEvent } from './campaign-feed.js';
import { balanceChanged, FundsFeed, type FundsEvent } from './funds-feed.js';
import type { GiftChange } from './gift-diff.js';
import { LiveHub, type LiveStats } from './hub.js';
import { consoleLogger, outageLogger, type LiveListener, type LiveLogger } from './listener.js';
import { DEFAULT_JITTER, DEFAULT_MAX_BACKOFF_INTERVALS } from './poller.js';

export interface LiveOptions {
  client: UpstreamClient;
  /** POLL_INTERVAL_MS */
  intervalMs: number;
  /** Sustained outages are logged here. Default: the console. */
  logger?: LiveLogger;
}

/**
 * Finds an order by caller id or uuid for a subscription being set up. Subscriptions pass their request's
 * campaign loader, so the lookup runs with that request's signal (and, later, its auth).
 */
export type CampaignLookup = (ref: string) => Promise<Campaign | null>;

export interface Live {
  /** Changes of one order's rewards (caller id or uuid), or of the whole account; null: no such order. */
  giftChanges(options: {
    campaign: string | null;
    includeCurrent: boolean;
    lookup: CampaignLookup;
  }): Promise<AsyncIterableIterator<GiftChange> | null>;
  /** The order each time its status changes; null: no such order. */
  campaignStatus(ref: string, lookup: CampaignLookup): Promise<AsyncIterableIterator<Campaign> | null>;
  /** The balances each time they change (only those of `currency` count when given). */
  fundsChanges(currency: string | null): AsyncIterableIterator<Funds>;
  /** Hooks for metrics and tests; returns the removal. */
  listen(listener: LiveListener): () => void;
  stats(): LiveStats;
  /** Stops every poller and ends every subscription. */
  close(): void;
}

const ACCOUNT_KEY = 'account';
const FUNDS_KEY = 'funds';
const CAMPAIGN_PREFIX = 'campaign:';

export function createLive({ client, intervalMs, logger = consoleLogger }: LiveOptions): Live {
  const hub = new LiveHub({ intervalMs, jitter: DEFAULT_JITTER, maxBackoffIntervals: DEFAULT_MAX_BACKOFF_INTERVALS });
  hub.listen(outageLogger(logger));

  // Refs (caller id or uuid) of watched orders → uuid, so subscribers joining a watched order cost no lookup.
  // Kept only while the order's poller runs.
  const uuidByRef = new Map<string, string>();
  hub.listen({
    onPollerStop(key) {
      if (!key.startsWith(CAMPAIGN_PREFIX)) return;
      const uuid = key.slice(CAMPAIGN_PREFIX.length);
      for (const [ref, target] of uuidByRef) if (target === uuid) uuidByRef.delete(ref);
    },
  });

  async function campaignUuid(ref: string, lookup: CampaignLookup): Promise<string | null> {
    const known = uuidByRef.get(ref);
    if (known && hub.has(CAMPAIGN_PREFIX + known)) return known;
    return (await lookup(ref))?.uuid ?? null;
  }

  function subscribeCampaign<T>(uuid: string, ref: string, topic: CampaignEvent['topic'], select: (e: CampaignEvent) => T | undefined, includeCurrent = false) {
    const iterator = hub.subscribe<CampaignEvent, T>(CAMPAIGN_PREFIX + uuid, () => new CampaignFeed(client, uuid), {
      topic,
      select,
      includeCurrent,
    });
    if (hub.has(CAMPAIGN_PREFIX + uuid)) uuidByRef.set(ref, uuid).set(uuid, uuid);
    return iterator;
  }

  return {
    async giftChanges({ campaign, includeCurrent, lookup }) {
      if (campaign === null) {
        return hub.subscribe<AccountEvent, GiftChange>(ACCOUNT_KEY, () => new AccountFeed(client), {
          topic: 'gift',
          select: (event) => event.change,
          includeCurrent,
        });
      }
      const uuid = await campaignUuid(campaign, lookup);
      if (!uuid) return null;
      return subscribeCampaign(uuid, campaign, 'gift', (e) => (e.topic === 'gift' ? e.change : undefined), includeCurrent);
    },

    async campaignStatus(ref, lookup) {
      const uuid = await campaignUuid(ref, lookup);
      if (!uuid) return null;
      return subscribeCampaign(uuid, ref, 'campaign', (e) => (e.topic === 'campaign' ? e.campaign : undefined));
    },

    fundsChanges(currency) {
      return hub.subscribe<FundsEvent, Funds>(FUNDS_KEY, () => new FundsFeed(client), {
        topic: 'funds',
        select: (event) => (currency === null || balanceChanged(event.previous, event.funds, currency) ? event.funds : undefined),
      });
    },

    listen: (listener) => hub.listen(listener),
    stats: () => hub.stats(),
    close: () => hub.close(),
  };
}
