import { EXPIRY, type LogPosition } from '../cluster/store.js';
import { decode } from '../cluster/codec.js';
import { cursorAhead, cursorExpired, encodeCursor, isAfter } from './cursor.js';
import type { Entry, Logged, Subscriber } from './entry.js';
import type { LiveEvent } from './feed.js';
import type { LiveStore } from './store.js';

// A subscriber's start (its current state and then live events, or the events after its cursor first) and
// what it is handed: each log entry once, in order, from its own position on.

/** A new subscriber's start, once the entry has a view: its current state if asked, then live events. */
export function welcome<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>, includeCurrent: boolean): void {
  // The view is exactly what the live subscribers have been handed, so its state and then every event
  // delivered from here on come with none missed or repeated.
  const at = entry.handed ?? entry.position;
  if (includeCurrent && entry.view && at) {
    const cursor = encodeCursor({ key: entry.key, ...at });
    for (const event of entry.view.current(subscriber.topic)) send(subscriber, event, cursor);
  }
  subscriber.position = at;
  subscriber.state = 'live';
  if (entry.ended.has(subscriber.topic)) subscriber.channel.end();
}

/** Delivers the log after `from` to one subscriber, then lets it go live without a gap or a repeat. */
export async function resume<E extends LiveEvent>(
  store: LiveStore,
  entry: Entry<E>,
  subscriber: Subscriber<E>,
  from: LogPosition,
  maxAgeMs?: number,
): Promise<void> {
  subscriber.state = 'resuming';
  subscriber.buffer = [];
  const read = await store.read(entry.key, from, maxAgeMs).catch((error: unknown) => {
    // The read is what told the replica Redis hangs (it timed out): the client hears why, not an internal error.
    if (store.healthy) throw error;
    return { expired: true, reason: EXPIRY.unreachable } as const;
  });
  if (read.expired) throw 'ahead' in read ? cursorAhead() : cursorExpired(read.reason);
  subscriber.position = from;
  for (const logEntry of read.entries) deliver(entry, subscriber, { epoch: read.epoch, id: logEntry.id }, decode<Logged<E>>(logEntry.data));
  const buffered = subscriber.buffer;
  subscriber.buffer = [];
  subscriber.state = 'live';
  for (const { position, logged } of buffered) deliver(entry, subscriber, position, logged);
}

export function deliver<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>, position: LogPosition, logged: Logged<E>): void {
  if (!isAfter(position.epoch, position.id, subscriber.position)) return;
  subscriber.position = position;
  if ('end' in logged) {
    if (logged.end === subscriber.topic) subscriber.channel.end();
    return;
  }
  if (logged.event.topic !== subscriber.topic) return;
  send(subscriber, logged.event, encodeCursor({ key: entry.key, ...position }));
}

function send<E extends LiveEvent>(subscriber: Subscriber<E>, event: E, cursor: string): void {
  const value = subscriber.select(event, cursor);
  if (value !== undefined) subscriber.channel.push(value);
}
