import type { Lease, LogPosition } from '../cluster/store.js';
import { decode, encode } from '../cluster/codec.js';
import { IDLE, SWEEP_TICKS, type Entry, type HubContext, type Logged, type StoredState, type TickReport } from './entry.js';
import type { LiveEvent } from './feed.js';
import { catchUp } from './log-reader.js';
import { adoptView, loadView, pollView } from './view.js';
import { currentTraceparent, inSpan } from '../telemetry/spans.js';

// One interval of an entry, as its Poller runs it: with the shared store, claim the key's lease, poll the
// upstream and commit if this replica holds it, and read the log; without the store, poll the view alone.

/** One interval of an entry: with the shared store if it answers, alone if it does not (or stops mid-tick). */
export async function tick<E extends LiveEvent>(hub: HubContext, entry: Entry<E>, signal: AbortSignal): Promise<TickReport> {
  if (hub.store.healthy) {
    try {
      return await sharedTick(hub, entry, signal);
    } catch (error) {
      if (hub.store.healthy) throw error;
    }
  }
  // The lease (if Redis still has it) and the leader's feed are left behind: back with Redis, the entry
  // claims again and continues from the stored snapshot, never from a poll whose commit may have failed.
  entry.lease = null;
  entry.feed = null;
  entry.bridgeDue = true;
  return pollView(hub, entry, signal);
}

/** Claim the lease; poll and commit if held; read the log; then the bridge poll if one is due. */
async function sharedTick<E extends LiveEvent>(hub: HubContext, entry: Entry<E>, signal: AbortSignal): Promise<TickReport> {
  const { store } = hub;
  if (!entry.view) await loadView(hub, entry);
  // An entry that started while Redis was unreachable has a view but no place in the shared log yet: from its
  // end on (the bridge poll covers what came before).
  else entry.position ??= await store.tail(entry.key);
  const lease = await store.claim(entry.key);
  if (entry.stopped) return IDLE;
  if (!lease) {
    entry.lease = null;
    entry.feed = null;
  } else if (!entry.lease || entry.lease.token !== lease.token || !entry.feed) {
    await lead(hub, entry, lease);
  }

  let report = IDLE;
  let appended = false;
  if (entry.lease && entry.feed) {
    const { feed, lease: held } = entry;
    const baseline = entry.baseline;
    hub.notify((l) => l.onPollStart?.(entry.key));
    // A failed poll leaves the feed's state untouched, so the lease and the state stay this replica's.
    const outcome = await feed.poll(signal, baseline);
    const newlyEnded = [...new Set(outcome.ended)].filter((topic) => !entry.ended.has(topic));
    // Traced, each entry names this poll, so its delivery (on whichever replica reads it) links to the poll.
    const cause = currentTraceparent();
    const logged: Logged<E>[] = [
      ...(baseline ? [] : outcome.events.map((event) => (cause ? { event, cause } : { event }))),
      ...newlyEnded.map((end) => (cause ? { end, cause } : { end })),
    ];
    const state: StoredState = { feed: feed.snapshot(), ended: [...entry.ended, ...newlyEnded] };
    const encoded = encode(state);
    // A quiet poll changes nothing in Redis: the snapshot is written when it changed, and at least every half
    // retention so it does not expire under a key that is still watched.
    const unchanged =
      logged.length === 0 && entry.view !== null && encoded === entry.committed?.state && Date.now() - entry.committed.at < hub.retentionMs / 2;
    let committed: LogPosition | null = null;
    try {
      if (!unchanged) {
        committed = await inSpan(
          'live.commit',
          () => ({ 'reward.live.key': entry.key, 'reward.live.lease_token': held.token, 'reward.live.events': logged.length }),
          async (span) => {
            const position = await store.commit(
              entry.key,
              held.token,
              encoded,
              logged.map((l) => encode(l)),
            );
            // null: fenced, another replica holds the key now.
            span?.setAttribute('reward.live.fenced', position === null);
            return position;
          },
        );
      }
    } catch (error) {
      // The poll moved the feed past changes that were never logged: the next tick continues from the stored
      // snapshot, from before them, so they are found again instead of lost.
      entry.feed = null;
      throw error;
    }
    if (!unchanged && !committed) {
      // Fenced: another replica holds the key now. Its snapshot, not ours, is what the key continues from.
      entry.lease = null;
      entry.feed = null;
    } else {
      entry.baseline = false;
      if (committed) entry.committed = { state: encoded, at: Date.now() };
      appended = committed !== null && logged.length > 0;
      const published = baseline ? 0 : outcome.events.length;
      hub.notify((l) => l.onPublish?.(published));
      report = { polled: true, baseline, events: published };
      if (!entry.view && committed) adoptView(entry, state, committed);
    }
  }
  // The log is read when pub/sub says it grew (see LiveHub's constructor); here only after this replica's own
  // events, when the view may lack something, and as a slow sweep.
  entry.sinceRead += 1;
  if (appended || entry.bridgeDue || entry.sinceRead >= SWEEP_TICKS) await catchUp(hub, entry);
  // The bridge: once the key's snapshot exists again, one poll of the view finds what the log may lack.
  if (entry.bridgeDue && entry.view && (report.polled || (await store.snapshot(entry.key)))) {
    const bridge = await pollView(hub, entry, signal);
    entry.bridgeDue = false;
    if (!report.polled) report = bridge;
  }
  return report;
}

/**
 * This replica now holds the key's lease: continue from the stored snapshot; with none, from the view (a
 * Redis that restarted empty: the changes since the view are this poll's events, none lost or repeated);
 * with no view either (a key nobody watched), take a baseline.
 */
async function lead<E extends LiveEvent>(hub: HubContext, entry: Entry<E>, lease: Lease): Promise<void> {
  const snapshot = await hub.store.snapshot(entry.key);
  const feed = entry.createFeed();
  if (snapshot) {
    const state = decode<StoredState>(snapshot.state);
    feed.restore(state.feed);
    for (const topic of state.ended) entry.ended.add(topic);
  } else if (entry.view) {
    feed.restore(entry.view.snapshot());
  }
  entry.feed = feed;
  // Written again at the first poll, whatever it finds: when the stored copy was last refreshed is unknown here.
  entry.committed = snapshot ? { state: snapshot.state, at: 0 } : null;
  entry.baseline = !snapshot && !entry.view;
  entry.lease = lease;
  if (lease.takenFrom) hub.notify((l) => l.onTakeover?.({ key: entry.key, from: lease.takenFrom! }));
}
