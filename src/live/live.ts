// What subscriptions ask of the live hub, in the gateway's terms: one gateway creates one Live, shared by
// every request's context. Each method returns the async iterator a subscription resolver hands to GraphQL;
// every event carries its cursor, and `after` resumes from one.

import type { Campaign, Funds, UpstreamClient } from '../upstream/types.js';
import { AccountFeed, type AccountEvent } from './account-feed.js';
import { CampaignFeed, type CampaignEvent, type DropFound } from './campaign-feed.js';
import { decodeCursor } from './cursor.js';
import { balanceChanged, FundsFeed, type FundsEvent } from './funds-feed.js';
import type { GiftChange } from './gift-diff.js';
import { LiveHub, type LiveStats } from './hub.js';
import { consoleLogger, outageLogger, type LiveListener, type LiveLogger } from './listener.js';
import { DEFAULT_JITTER, DEFAULT_MAX_BACKOFF_INTERVALS } from './poller.js';
import type { LiveStore } from './store.js';
import { createSubscriptionCap } from './subscription-cap.js';
import { busyInterval } from '../shared/busy-interval.js';
import { gatewayError } from '../errors/gateway-error.js';

export interface LiveOptions {
  client: UpstreamClient;
  /** What replicas share (memory or Redis); see store.ts. */
  store: LiveStore;
  /** POLL_INTERVAL_MS */
  intervalMs: number;
  /** LIVE_RETENTION_MS */
  retentionMs: number;
  /** LIVE_MAX_POLLERS: keys this replica watches at most. */
  maxPollers: number;
  /** LIVE_MAX_WATCHED_PER_KEY: orders one API key watches at most (across the cluster). */
  maxWatchedPerKey: number;
  /** LIVE_MAX_SUBSCRIPTIONS_PER_KEY: subscriptions one API key has open at most (across the cluster). */
  maxSubscriptionsPerKey: number;
  /** Sustained outages and takeovers are logged here. Default: the console. */
  logger?: LiveLogger;
  /** The read cache's drop of what an order's poll found changed after a takeover (campaign-feed.ts). */
  dropFound?: DropFound;
}

/**
 * Finds an order by caller id or uuid for a subscription being set up. Subscriptions pass their request's
 * campaign loader, so the lookup runs with that request's signal (and, later, its auth).
 */
export type CampaignLookup = (ref: string) => Promise<Campaign | null>;

export interface Cursored {
  cursor: string;
}
export type GiftStatusChange = GiftChange & Cursored;
export interface CampaignStatusChange extends Cursored {
  campaign: Campaign;
  previousStatus: string;
  changedAt: Date;
}
export interface FundsChange extends Cursored {
  funds: Funds;
  previous: Funds;
  changedAt: Date;
}

interface Subscription {
  /** The resume cursor a client sent, if any. */
  after: string | null;
  /** Who watches: the API key's name, for the per-key cap. */
  watcher: string;
}

export interface Live {
  /** Changes of one order's rewards (caller id or uuid), or of the whole account; null: no such order. */
  giftChanges(
    options: Subscription & { campaign: string | null; includeCurrent: boolean; lookup: CampaignLookup },
  ): Promise<AsyncIterableIterator<GiftStatusChange> | null>;
  /** Each change of the order's status; null: no such order. */
  campaignStatus(options: Subscription & { ref: string; lookup: CampaignLookup }): Promise<AsyncIterableIterator<CampaignStatusChange> | null>;
  /** The balances each time they change (only those of `currency` count when given). */
  fundsChanges(options: Subscription & { currency: string | null }): Promise<AsyncIterableIterator<FundsChange>>;
  /**
   * Watches an order for a live query: its poller runs (one for the cluster, shared with subscriptions and
   * webhooks) while the watch lasts, and what it sees change drops the read cache, which is what re-resolves the
   * live query. `onWatched` runs once the poller has its first look (what changed before it drops nothing).
   * `onRefused` runs instead when the poller cannot start (LIVE_MAX_POLLERS reached on this replica).
   * Returns the release. Counted against no API key: a live query bounds its own orders.
   */
  watchOrder(uuid: string, onWatched?: () => void, onRefused?: () => void): () => void;
  /** Hooks for metrics and tests; returns the removal. */
  listen(listener: LiveListener): () => void;
  stats(): LiveStats;
  /** Keys whose poller runs on this replica. */
  leases(): number;
  /** Stops every poller and ends every subscription. */
  close(): void;
}

const ACCOUNT_KEY = 'account';
const FUNDS_KEY = 'funds';
const CAMPAIGN_PREFIX = 'campaign:';

// What a subscriber receives of an event: shared functions, as a subscriber keeps its `select` for its life.
const accountGiftChange = (event: AccountEvent, cursor: string): GiftStatusChange => ({ ...event.change, cursor });
const campaignGiftChange = (e: CampaignEvent, cursor: string): GiftStatusChange | undefined =>
  e.topic === 'gift' ? { ...e.change, cursor } : undefined;
const campaignStatusChange = (e: CampaignEvent, cursor: string): CampaignStatusChange | undefined =>
  e.topic === 'campaign' ? { campaign: e.campaign, previousStatus: e.previousStatus, changedAt: e.changedAt, cursor } : undefined;

export function createLive({
  client,
  store,
  intervalMs,
  retentionMs,
  maxPollers,
  maxWatchedPerKey,
  maxSubscriptionsPerKey,
  logger = consoleLogger,
  dropFound,
}: LiveOptions): Live {
  const hub = new LiveHub({
    store,
    retentionMs,
    maxPollers,
    schedule: { intervalMs, jitter: DEFAULT_JITTER, maxBackoffIntervals: DEFAULT_MAX_BACKOFF_INTERVALS },
  });
  hub.listen(outageLogger(logger));
  // The pollers' reads: served by the upstream budget after writes and before other reads.
  const polling = client.inScope({ priority: 'poll' });
  hub.listen({
    onTakeover: ({ key, from }) => logger.info({ key, from, owner: store.owner }, 'live: took over a key whose poller vanished'),
  });

  // Refs (caller id or uuid) of watched orders → uuid, so subscribers joining a watched order cost no lookup.
  // Kept only while the order is watched here.
  const uuidByRef = new Map<string, string>();
  // First lookups in flight, so a crowd subscribing to a new order at once costs one lookup, not one each.
  const lookups = new Map<string, Promise<string | null>>();
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
    let pending = lookups.get(ref);
    const shared = pending !== undefined;
    if (!pending) {
      pending = lookup(ref).then((campaign) => campaign?.uuid ?? null);
      lookups.set(ref, pending);
      void pending.finally(() => lookups.delete(ref)).catch(() => undefined);
    }
    try {
      return await pending;
    } catch (error) {
      // The shared lookup failed with its own request (aborted, say): this request asks for itself.
      if (!shared) throw error;
      return (await lookup(ref))?.uuid ?? null;
    }
  }

  // Watched orders per API key on this replica, with how many subscriptions watch each; the store admits an
  // order for a key only under the cap, across the cluster. The group is the key's name under `orders:`, apart
  // from the subscription cap's `subscriptions:` (a key may be named anything).
  const ordersGroup = (watcher: string) => `orders:${watcher}`;
  const watching = new Map<string, Map<string, number>>();
  const ordersOf = (watcher: string): Map<string, number> => {
    let orders = watching.get(watcher);
    if (!orders) watching.set(watcher, (orders = new Map<string, number>()));
    return orders;
  };
  async function admitWatch(watcher: string, key: string): Promise<() => void> {
    if (!watching.get(watcher)?.has(key) && !(await store.admit(ordersGroup(watcher), key, maxWatchedPerKey))) {
      throw gatewayError('WATCH_LIMIT_EXCEEDED', { max: maxWatchedPerKey });
    }
    // Looked up after the await: another subscription may have registered or emptied the watcher's map since.
    const orders = ordersOf(watcher);
    orders.set(key, (orders.get(key) ?? 0) + 1);
    renew.poke();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (orders.get(key) ?? 1) - 1;
      if (count > 0) return void orders.set(key, count);
      orders.delete(key);
      if (orders.size === 0 && watching.get(watcher) === orders) watching.delete(watcher);
      void store.dismiss(ordersGroup(watcher), key).catch(() => undefined);
    };
  }
  // Admissions of a replica that dies expire after LIVE_LEASE_MS unless renewed, which this does.
  const renew = busyInterval(
    () => watching.size > 0,
    () => {
      for (const [watcher, orders] of watching) void store.refresh(ordersGroup(watcher), [...orders.keys()]).catch(() => undefined);
    },
    intervalMs,
  );

  const subscriptions = createSubscriptionCap({ store, max: maxSubscriptionsPerKey, renewEveryMs: intervalMs });
  /**
   * Opens one of the key's subscriptions under its cap: `open` gets the release to run when its iterator closes,
   * and the count is given back at once when opening fails or finds no such order.
   */
  async function counted<T>(watcher: string, open: (release: () => void) => Promise<T>): Promise<T> {
    const release = await subscriptions.admit(watcher);
    try {
      const iterator = await open(release);
      if (iterator === null) release();
      return iterator;
    } catch (error) {
      release();
      throw error;
    }
  }

  async function subscribeCampaign<T>(
    { after, watcher }: Subscription,
    uuid: string,
    ref: string,
    topic: CampaignEvent['topic'],
    select: (e: CampaignEvent, cursor: string) => T | undefined,
    includeCurrent: boolean,
    release: () => void,
  ): Promise<AsyncIterableIterator<T>> {
    const key = CAMPAIGN_PREFIX + uuid;
    const position = after === null ? undefined : decodeCursor(after, key);
    const dismiss = await admitWatch(watcher, key);
    try {
      const accepted = hub.subscribe<CampaignEvent, T>(key, () => new CampaignFeed(polling, uuid, dropFound), {
        topic,
        select,
        includeCurrent,
        after: position,
        onClose: () => {
          dismiss();
          release();
        },
      });
      // The key is watched from this call on, though the subscription is accepted only once a view exists (a
      // baseline poll away): noted now, so the crowd arriving meanwhile costs no lookup of its own.
      if (hub.has(key)) uuidByRef.set(ref, uuid).set(uuid, uuid);
      return await accepted;
    } catch (error) {
      dismiss();
      throw error;
    }
  }

  return {
    giftChanges({ campaign, includeCurrent, lookup, after, watcher }) {
      return counted(watcher, async (release) => {
        if (campaign === null) {
          return hub.subscribe<AccountEvent, GiftStatusChange>(ACCOUNT_KEY, () => new AccountFeed(polling), {
            topic: 'gift',
            select: accountGiftChange,
            includeCurrent,
            after: after === null ? undefined : decodeCursor(after, ACCOUNT_KEY),
            onClose: release,
          });
        }
        const uuid = await campaignUuid(campaign, lookup);
        if (!uuid) return null;
        return subscribeCampaign<GiftStatusChange>({ after, watcher }, uuid, campaign, 'gift', campaignGiftChange, includeCurrent, release);
      });
    },

    campaignStatus({ ref, lookup, after, watcher }) {
      return counted(watcher, async (release) => {
        const uuid = await campaignUuid(ref, lookup);
        if (!uuid) return null;
        return subscribeCampaign<CampaignStatusChange>({ after, watcher }, uuid, ref, 'campaign', campaignStatusChange, false, release);
      });
    },

    fundsChanges({ currency, after, watcher }) {
      return counted(watcher, (release) =>
        hub.subscribe<FundsEvent, FundsChange>(FUNDS_KEY, () => new FundsFeed(polling), {
          topic: 'funds',
          select: (event, cursor) =>
            currency === null || balanceChanged(event.previous, event.funds, currency)
              ? { funds: event.funds, previous: event.previous, changedAt: event.changedAt, cursor }
              : undefined,
          after: after === null ? undefined : decodeCursor(after, FUNDS_KEY),
          onClose: release,
        }),
      );
    },

    watchOrder(uuid, onWatched, onRefused) {
      let released = false;
      let iterator: AsyncIterableIterator<never> | null = null;
      // Only the poll matters here, never the events: the select keeps none, so nothing is queued.
      void hub
        .subscribe<CampaignEvent, never>(CAMPAIGN_PREFIX + uuid, () => new CampaignFeed(polling, uuid, dropFound), {
          topic: 'gift',
          select: () => undefined,
        })
        .then((accepted) => {
          iterator = accepted;
          if (released) void accepted.return?.();
          else onWatched?.();
        })
        .catch(() => {
          if (!released) onRefused?.();
        });
      return () => {
        if (released) return;
        released = true;
        void iterator?.return?.();
      };
    },
    listen: (listener) => hub.listen(listener),
    stats: () => hub.stats(),
    leases: () => hub.leases(),
    close: () => {
      renew.close();
      subscriptions.close();
      hub.close();
    },
  };
}
