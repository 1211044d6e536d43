import type { LogPosition } from '../cluster/store.js';
import { decode, encode } from '../cluster/codec.js';
import { IDLE, SWEEP_TICKS, type Entry, type HubContext, type Logged, type StoredState, type TickReport } from './entry.js';
import type { LiveEvent } from './feed.js';
import { fanOut } from './log-reader.js';

// An entry's view (see the top of hub.ts): loaded from the key's snapshot, and polled by the replica alone while
// the shared store is unreachable (degraded mode) and once after it (the bridge).

/** The view, and the log position to read from, from the stored snapshot; not ready while there is none. */
export async function loadView<E extends LiveEvent>(hub: HubContext, entry: Entry<E>): Promise<void> {
  const snapshot = await hub.store.snapshot(entry.key);
  if (!snapshot?.position || entry.view) return;
  adoptView(entry, decode<StoredState>(snapshot.state), snapshot.position);
  // The key's notifications were asked for when the entry started, but may hold only from some moment after
  // this read: the entry's next tick reads the log once, so a commit in between waits one interval, not a sweep.
  entry.sinceRead = SWEEP_TICKS;
}

export function adoptView<E extends LiveEvent>(entry: Entry<E>, state: StoredState, position: LogPosition): void {
  const view = entry.createFeed();
  view.restore(state.feed);
  for (const topic of state.ended) entry.ended.add(topic as E['topic']);
  entry.view = view;
  entry.position = position;
  entry.handed = position;
  if (!entry.ready) entry.markReady();
}

/**
 * Polls the view itself, without the shared store: what it finds is exactly what this replica's subscribers
 * have not been handed. The events go to the replica's own log (for their cursors) and straight out.
 */
export async function pollView<E extends LiveEvent>(hub: HubContext, entry: Entry<E>, signal: AbortSignal): Promise<TickReport> {
  const baseline = !entry.view;
  const view = entry.view ?? entry.createFeed();
  hub.notify((l) => l.onPollStart?.(entry.key));
  const outcome = await view.poll(signal, baseline);
  if (entry.stopped) return IDLE;
  entry.view ??= view;
  const newlyEnded = [...new Set(outcome.ended)].filter((topic) => !entry.ended.has(topic));
  const logged: Logged<E>[] = [...(baseline ? [] : outcome.events.map((event) => ({ event }))), ...newlyEnded.map((end) => ({ end }))];
  const { positions, tail } = await hub.store.appendLocal(
    entry.key,
    logged.map((l) => encode(l)),
  );
  // The poll already moved the view: every entry it found is news.
  logged.forEach((l, i) => fanOut(entry, positions[i]!, l, true));
  entry.handed = tail;
  if (!entry.ready) entry.markReady();
  const events = logged.length - newlyEnded.length;
  hub.notify((l) => l.onPublish?.(events));
  return { polled: true, baseline, events };
}
