// LIVE_MAX_SUBSCRIPTIONS_PER_KEY: how many subscriptions one API key may have open at once, whatever the root
// field (fundsChanged and the account feed too) and the transport (WebSocket or SSE), across the cluster.
//
// Each open subscription is one member of its key's group in the LiveStore, the same shared sets that cap the
// orders a key watches: in memory for one process, in Redis for a cluster (per replica while Redis is down).
// Members are renewed every interval, so those of a replica that died lapse without it.
//
// LIVE_QUERY_MAX_PER_KEY caps live queries (`@live`) the same way, as a kind of its own (LIVE_QUERIES).

import type { LiveStore } from './store.js';
import { busyInterval } from '../shared/busy-interval.js';
import { gatewayError } from '../errors/gateway-error.js';

export interface SubscriptionCap {
  /** Counts one more subscription of `watcher` (an API key's name) and returns its release, or throws SUBSCRIPTIONS_PER_KEY_EXCEEDED. */
  admit(watcher: string): Promise<() => void>;
  /** Stops renewing (the store's members then lapse, or go with the store). */
  close(): void;
}

/** The store group of a key's subscriptions; orders watched use `orders:`, live queries `live-queries:`, so none mix. */
export const subscriptionGroup = (watcher: string) => `subscriptions:${watcher}`;

/** A cap of its own: the store group of a key's members, and the refusal past `max`. */
export interface CapKind {
  group(watcher: string): string;
  refuse(max: number): Error;
}

const SUBSCRIPTIONS: CapKind = {
  group: subscriptionGroup,
  refuse: (max) => gatewayError('SUBSCRIPTIONS_PER_KEY_EXCEEDED', { limit: max }),
};

/** LIVE_QUERY_MAX_PER_KEY: live queries are counted apart from subscriptions, under `live-queries:`. */
export const LIVE_QUERIES: CapKind = {
  group: (watcher) => `live-queries:${watcher}`,
  refuse: (max) => gatewayError('LIVE_QUERIES_PER_KEY_EXCEEDED', { limit: max }),
};

export function createSubscriptionCap({
  store,
  max,
  renewEveryMs,
  kind = SUBSCRIPTIONS,
}: {
  store: LiveStore;
  max: number;
  renewEveryMs: number;
  kind?: CapKind;
}): SubscriptionCap {
  // This replica's members per API key. A member names its replica, so replicas never count one another's.
  const open = new Map<string, Set<string>>();
  let next = 0;

  const renew = busyInterval(
    () => open.size > 0,
    () => {
      for (const [watcher, members] of open) void store.refresh(kind.group(watcher), [...members]).catch(() => undefined);
    },
    renewEveryMs,
  );

  return {
    async admit(watcher) {
      const member = `${store.owner}#${(next += 1)}`;
      if (!(await store.admit(kind.group(watcher), member, max))) throw kind.refuse(max);
      let members = open.get(watcher);
      if (!members) open.set(watcher, (members = new Set()));
      members.add(member);
      renew.poke();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        members.delete(member);
        if (members.size === 0 && open.get(watcher) === members) open.delete(watcher);
        void store.dismiss(kind.group(watcher), member).catch(() => undefined);
      };
    },
    close: () => renew.close(),
  };
}
