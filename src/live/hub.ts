// The live hub: one feed and one poller per watched key, however many subscribers share it. The first
// subscriber of a key starts its poller, the last one to leave stops it (timer cleared, request in flight
// aborted, state dropped). Each poll's events fan out to every subscriber of the key in memory, so the
// upstream sees the same requests for one subscriber as for thousands.

import { Channel } from './channel.js';
import type { LiveListener } from './listener.js';
import { Poller, type PollSchedule } from './poller.js';

export interface LiveEvent {
  /** Which stream of the key an event belongs to (e.g. a campaign feed carries `gift` and `campaign`). */
  readonly topic: string;
}

export interface PollOutcome<E extends LiveEvent> {
  /** Changes since the previous poll; ignored for the baseline. */
  events: E[];
  /** Topics that will never change again: their subscribers complete, later ones complete at once. */
  ended: E['topic'][];
}

/** What a key watches upstream. Stateful: the feed keeps the last snapshot and diffs the next against it. */
export interface Feed<E extends LiveEvent> {
  /** One poll; `baseline` on the first successful one. Must leave its state untouched when it rejects. */
  poll(signal: AbortSignal, baseline: boolean): Promise<PollOutcome<E>>;
  /** The current state as events, for subscribers that ask for it (`includeCurrent`); valid after the baseline. */
  current(topic: E['topic']): E[];
}

export interface SubscribeOptions<E extends LiveEvent, T> {
  topic: E['topic'];
  /** Maps an event of the topic to what this subscriber receives; undefined skips it (a filter). */
  select(event: E): T | undefined;
  includeCurrent?: boolean;
}

export interface LiveStats {
  pollers: number;
  subscribers: number;
}

interface Subscriber<E extends LiveEvent> {
  topic: E['topic'];
  select(event: E): unknown;
  includeCurrent: boolean;
  channel: Channel<unknown>;
}

interface Entry<E extends LiveEvent> {
  key: string;
  feed: Feed<E>;
  poller: Poller;
  subscribers: Set<Subscriber<E>>;
  baselineDone: boolean;
  ended: Set<E['topic']>;
}

export class LiveHub {
  private readonly entries = new Map<string, Entry<LiveEvent>>();
  private readonly listeners = new Set<LiveListener>();
  private closed = false;

  constructor(private readonly schedule: PollSchedule) {}

  /** Adds a listener; returns its removal. */
  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  stats(): LiveStats {
    let subscribers = 0;
    for (const entry of this.entries.values()) subscribers += entry.subscribers.size;
    return { pollers: this.entries.size, subscribers };
  }

  subscribe<E extends LiveEvent, T>(
    key: string,
    createFeed: () => Feed<E>,
    options: SubscribeOptions<E, T>,
  ): AsyncIterableIterator<T, undefined> {
    if (this.closed) {
      const channel = new Channel<T>(() => undefined);
      channel.end();
      return channel;
    }
    const existing = this.entries.get(key) as Entry<E> | undefined;
    const entry = existing ?? this.createEntry(key, createFeed());
    const subscriber: Subscriber<E> = {
      topic: options.topic,
      select: options.select,
      includeCurrent: options.includeCurrent ?? false,
      channel: new Channel<unknown>(() => this.unsubscribe(entry, subscriber)),
    };
    entry.subscribers.add(subscriber);
    if (existing) {
      if (entry.baselineDone) this.welcome(entry, subscriber);
    } else {
      this.entries.set(key, entry as Entry<LiveEvent>);
      this.notify((l) => l.onPollerStart?.(key));
      entry.poller.start();
    }
    return subscriber.channel as Channel<T>;
  }

  /** Stops every poller and ends every subscription (server shutdown). */
  close(): void {
    this.closed = true;
    for (const entry of [...this.entries.values()]) {
      // Ending the last subscriber of a key stops its poller.
      for (const subscriber of [...entry.subscribers]) subscriber.channel.end();
    }
  }

  private createEntry<E extends LiveEvent>(key: string, feed: Feed<E>): Entry<E> {
    let delivered = 0;
    const entry: Entry<E> = {
      key,
      feed,
      subscribers: new Set(),
      baselineDone: false,
      ended: new Set(),
      poller: new Poller(this.schedule, {
        run: async (signal, baseline) => {
          this.notify((l) => l.onPollStart?.(key));
          const outcome = await feed.poll(signal, baseline);
          delivered = baseline ? 0 : outcome.events.length;
          this.deliver(entry, outcome, baseline);
        },
        onSuccess: ({ baseline, durationMs }) =>
          this.notify((l) => l.onPoll?.({ key, baseline, durationMs, events: delivered })),
        onFailure: (report) => this.notify((l) => l.onPollError?.({ key, ...report })),
      }),
    };
    return entry;
  }

  private deliver<E extends LiveEvent>(entry: Entry<E>, outcome: PollOutcome<E>, baseline: boolean): void {
    if (baseline) {
      entry.baselineDone = true;
      for (const subscriber of [...entry.subscribers]) this.welcome(entry, subscriber);
    } else {
      for (const event of outcome.events) {
        for (const subscriber of [...entry.subscribers]) {
          if (subscriber.topic === event.topic) send(subscriber, event);
        }
      }
    }
    for (const topic of outcome.ended) {
      entry.ended.add(topic);
      for (const subscriber of [...entry.subscribers]) {
        if (subscriber.topic === topic) subscriber.channel.end();
      }
    }
  }

  /** A subscriber's start once the key's baseline is known: the current state if asked, the end if it came. */
  private welcome<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>): void {
    if (subscriber.includeCurrent) {
      for (const event of entry.feed.current(subscriber.topic)) send(subscriber, event);
    }
    if (entry.ended.has(subscriber.topic)) subscriber.channel.end();
  }

  private unsubscribe<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>): void {
    entry.subscribers.delete(subscriber);
    if (entry.subscribers.size > 0 || this.entries.get(entry.key) !== (entry as Entry<LiveEvent>)) return;
    entry.poller.stop();
    this.entries.delete(entry.key);
    this.notify((l) => l.onPollerStop?.(entry.key));
  }

  private notify(call: (listener: LiveListener) => void): void {
    for (const listener of this.listeners) {
      try {
        call(listener);
      } catch {
        // A failing metrics or log hook must never stop polling or reach a subscriber.
      }
    }
  }
}

function send<E extends LiveEvent>(subscriber: Subscriber<E>, event: E): void {
  const value = subscriber.select(event);
  if (value !== undefined) subscriber.channel.push(value);
}
