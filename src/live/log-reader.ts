import type { LogPosition } from '../cluster/store.js';
import { decode } from '../cluster/codec.js';
import type { Entry, HubContext, Logged } from './entry.js';
import type { LiveEvent } from './feed.js';
import { deliver } from './subscriber.js';
import { causeOfWork, rootSpan, spanContextOf } from '../telemetry/spans.js';

// Reading a key's log and handing each entry to the key's subscribers on this replica, once.

/** Reads the key's log from where this replica is and hands each entry to its subscribers. One read at a time. */
export function catchUp<E extends LiveEvent>(hub: HubContext, entry: Entry<E>): Promise<void> {
  if (entry.reading) {
    entry.readAgain = true;
    return entry.reading;
  }
  const { store } = hub;
  entry.reading = (async () => {
    do {
      entry.readAgain = false;
      if (!entry.position || !store.healthy) return;
      const read = await store.read(entry.key, entry.position);
      entry.sinceRead = 0;
      if (read.expired) {
        // Another log (Redis restarted empty) is read from its start; the same log, past a gap, from its end.
        // Either way the view decides what is news, and the bridge poll finds what no log holds.
        const tail = await store.tail(entry.key);
        entry.position = tail.epoch === entry.position.epoch ? tail : { epoch: tail.epoch, id: '0-0' };
        entry.bridgeDue = true;
        continue;
      }
      if (read.entries.length > 0) hub.notify((l) => l.onReceive?.(read.entries.length));
      for (const logEntry of read.entries) {
        const position = { epoch: read.epoch, id: logEntry.id };
        entry.position = position;
        const logged = decode<Logged<E>>(logEntry.data);
        const applied = 'end' in logged || !entry.view ? 'applied' : entry.view.apply(logged.event);
        if (applied === 'unsure') entry.bridgeDue = true;
        fanOut(entry, position, logged, applied === 'applied');
      }
    } while (entry.readAgain && !entry.stopped);
  })()
    .catch(() => {
      // The next tick reads again from the same position: nothing is lost, nothing delivered twice.
    })
    .finally(() => {
      entry.reading = null;
    });
  return entry.reading;
}

/**
 * One log entry for the key's subscribers: live ones get it if it is `news` (it moved the view on; an event
 * already handed, found again by another log, is not); those still resuming get it to sort out by position.
 */
export function fanOut<E extends LiveEvent>(entry: Entry<E>, position: LogPosition, logged: Logged<E>, news: boolean): void {
  if ('end' in logged) entry.ended.add(logged.end);
  if (news) entry.handed = position;
  // Each delivery of news is a trace of its own, linked to the poll that found it (its traceparent travels
  // in the log entry; a view polled alone delivers inside its own poll's span).
  const span = news && entry.subscribers.size > 0 ? rootSpan('live.deliver', () => deliveryCause(entry, position, logged)) : undefined;
  let delivered = 0;
  for (const subscriber of [...entry.subscribers]) {
    if (subscriber.state === 'live' && news) {
      deliver(entry, subscriber, position, logged);
      delivered += 1;
    } else if (subscriber.state === 'resuming') subscriber.buffer.push({ position, logged });
  }
  span?.setAttribute('reward.live.subscribers', delivered);
  span?.end();
}

function deliveryCause<E extends LiveEvent>(entry: Entry<E>, position: LogPosition, logged: Logged<E>) {
  return {
    links: [spanContextOf(logged.cause) ?? causeOfWork()],
    attributes: {
      'reward.live.key': entry.key,
      'reward.live.position': `${position.epoch}:${position.id}`,
      'reward.live.topic': 'end' in logged ? String(logged.end) : String(logged.event.topic),
      'reward.live.kind': 'end' in logged ? 'end' : 'event',
    },
  };
}
