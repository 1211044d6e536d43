// The live hub: one entry per watched key on this replica, however many subscribers share it, and across the
// cluster one poller per key. Every interval an entry claims the key's lease (see store.ts): the holder polls
// the upstream, diffing against the snapshot kept in the store, and commits the new snapshot with the events
// as one fenced write; every replica with subscribers reads the key's log from where it was and fans the
// entries out in memory. So the upstream sees the same requests for one subscriber as for thousands, on one
// replica or many, and every event has a log position: the cursor a client resumes from.
//
// Exactly-once does not rest on log positions alone, which mean nothing across logs (Redis's, a replica's own
// while Redis is away, Redis's again after it restarted empty). Each entry keeps a **view**: the feed's state
// as its subscribers have been handed it, advanced by every event it delivers. An event read from any log is
// delivered only if it moves the view on (Feed.apply), so one found twice, by two logs, goes out once. While
// Redis is unreachable the entry polls the view itself, so what it finds is exactly what its subscribers have
// not seen; a leader on a Redis that lost the key's snapshot seeds it from its view instead of taking a
// baseline. Whenever the view may lack what no log will bring (back from polling alone, a log lost, or a log
// event that starts from a state the view does not show), the entry polls its view once more after the key's
// snapshot exists (the bridge): the upstream, not a log, settles it.
//
// The first subscriber of a key starts its entry, the last one to leave stops it (timer cleared, request in
// flight aborted, lease released so another replica's subscribers get a poller at once).

import { GraphQLError } from 'graphql';
import { Channel } from './channel.js';
import { decode, encode } from './codec.js';
import { cursorAhead, cursorExpired, encodeCursor, isAfter } from './cursor.js';
import type { LiveListener } from './listener.js';
import { Poller, type PollSchedule } from './poller.js';
import { EXPIRY, type Lease, type LogPosition } from '../cluster/store.js';
import type { LiveStore } from './store.js';

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
  /**
   * One poll; `baseline` on the first successful one. Must leave its state untouched when it rejects, and diff
   * against its state as it is when the answers are in (events may have been applied meanwhile).
   */
  poll(signal: AbortSignal, baseline: boolean): Promise<PollOutcome<E>>;
  /** Advances the state by an event another poll found (see Applied); the state is left as it is unless applied. */
  apply(event: E): Applied;
  /** The current state as events, for subscribers that ask for it (`includeCurrent`); valid after the baseline. */
  current(topic: E['topic']): E[];
  /** The state the next poll diffs against, as plain data (dates allowed), for the store. */
  snapshot(): unknown;
  /** Continues from a snapshot another poller (maybe on another replica) left. */
  restore(state: unknown): void;
}

/**
 * What an event read from a log does to a state: `applied` (it moved the state on), `seen` (the state already
 * shows it: a copy found by another log), `unsure` (the state shows neither where the change started nor where
 * it ended: the log and the state disagree, a stale copy or changes combined by a poll that diffed against an
 * older state, and only a poll of the upstream can tell).
 */
export type Applied = 'applied' | 'seen' | 'unsure';

export interface SubscribeOptions<E extends LiveEvent, T> {
  topic: E['topic'];
  /** Maps an event of the topic and its cursor to what this subscriber receives; undefined skips it (a filter). */
  select(event: E, cursor: string): T | undefined;
  includeCurrent?: boolean;
  /** Resume: every event after this log position, then live ones (a client's cursor, already decoded). */
  after?: LogPosition;
  /** Runs once when the subscription ends, whichever side ends it. */
  onClose?(): void;
}

export interface LiveStats {
  /** Keys watched on this replica (each has an entry claiming its lease every interval). */
  pollers: number;
  subscribers: number;
}

export interface HubOptions {
  store: LiveStore;
  schedule: PollSchedule;
  /** LIVE_RETENTION_MS: clients' cursors older than this are refused. */
  retentionMs: number;
  /** LIVE_MAX_POLLERS: keys this replica watches at most. */
  maxPollers: number;
}

/** What one log entry holds: an event of a topic, or the end of a topic. */
type Logged<E extends LiveEvent> = { event: E } | { end: E['topic'] };

/** What the store keeps as a key's snapshot. */
interface StoredState {
  feed: unknown;
  ended: string[];
}

type SubscriberState = 'waiting' | 'resuming' | 'live';

interface Subscriber<E extends LiveEvent> {
  topic: E['topic'];
  select(event: E, cursor: string): unknown;
  channel: Channel<unknown>;
  state: SubscriberState;
  /** The last log position this subscriber has seen; entries at or before it are skipped. */
  position: LogPosition | null;
  /** Entries read for the key while this subscriber catches up from its own position. */
  buffer: { position: LogPosition; logged: Logged<E> }[];
}

interface Entry<E extends LiveEvent> {
  key: string;
  createFeed(): Feed<E>;
  poller: Poller;
  subscribers: Set<Subscriber<E>>;
  /** The lease and the feed state while this replica polls the key. */
  lease: Lease | null;
  feed: Feed<E> | null;
  baseline: boolean;
  /** The state this replica's subscribers have been handed (see the top of this file); null until ready. */
  view: Feed<E> | null;
  /** Topics known to have ended (from the snapshot or the log). */
  ended: Set<E['topic']>;
  /** How far this replica has read the shared log. */
  position: LogPosition | null;
  /** Position of the newest entry delivered, of any log: the cursor of the view's current state. */
  handed: LogPosition | null;
  /**
   * The view may lack what no log will bring (it was polled alone, or the log was lost, or disagreed with it): a
   * poll of the view itself (the bridge) is due once the shared snapshot exists.
   */
  bridgeDue: boolean;
  /** A view exists: subscribers can be welcomed. */
  ready: boolean;
  whenReady: Promise<void>;
  markReady(): void;
  reading: Promise<void> | null;
  readAgain: boolean;
  /** Ticks since the log was last read. */
  sinceRead: number;
  /** The snapshot as this replica last committed or loaded it, and when (Date.now()). */
  committed: { state: string; at: number } | null;
  stopped: boolean;
}

type TickReport = { polled: boolean; baseline: boolean; events: number };

/**
 * Ticks between reads of the log when no notification came. Pub/sub says when a key's log grew, and every key
 * is read when its connection comes back (what it lost meanwhile), so this is a last resort.
 */
const SWEEP_TICKS = 60;
const IDLE: TickReport = { polled: false, baseline: false, events: 0 };

export class LiveCapacityError extends GraphQLError {
  constructor(max: number) {
    super(`This gateway replica already watches its maximum of ${max} orders (LIVE_MAX_POLLERS); try again later.`, {
      extensions: { code: 'LIVE_CAPACITY_EXCEEDED' },
    });
  }
}

export class LiveHub {
  private readonly entries = new Map<string, Entry<LiveEvent>>();
  private readonly listeners = new Set<LiveListener>();
  private readonly stopAppends: () => void;
  private closed = false;

  constructor(private readonly options: HubOptions) {
    this.stopAppends = options.store.onAppend((key) => {
      const grown = key === null ? [...this.entries.values()] : [this.entries.get(key)];
      for (const entry of grown) if (entry) void this.catchUp(entry);
    });
  }

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

  /** Keys whose poller runs on this replica (it holds their lease). */
  leases(): number {
    let held = 0;
    for (const entry of this.entries.values()) if (entry.lease) held += 1;
    return held;
  }

  /**
   * A subscription of `key`. With `after`, resolves once the events after it are queued, and rejects with
   * CURSOR_EXPIRED when some are no longer kept; LIVE_CAPACITY_EXCEEDED when a new key would pass the cap.
   */
  async subscribe<E extends LiveEvent, T>(
    key: string,
    createFeed: () => Feed<E>,
    options: SubscribeOptions<E, T>,
  ): Promise<AsyncIterableIterator<T, undefined>> {
    if (this.closed) {
      const channel = new Channel<T>(() => options.onClose?.());
      channel.end();
      return channel;
    }
    let entry = this.entries.get(key) as Entry<E> | undefined;
    if (!entry) {
      if (this.entries.size >= this.options.maxPollers) throw new LiveCapacityError(this.options.maxPollers);
      entry = this.createEntry(key, createFeed);
    }
    const joined: Entry<E> = entry;
    // The channel's close callback lives as long as the subscriber: it holds what it needs, not `options`.
    const { onClose } = options;
    const subscriber: Subscriber<E> = {
      topic: options.topic,
      select: options.select,
      state: 'waiting',
      position: null,
      buffer: [],
      channel: new Channel<unknown>(() => {
        this.unsubscribe(joined, subscriber);
        onClose?.();
      }),
    };
    joined.subscribers.add(subscriber);
    if (options.after) {
      try {
        await this.resume(joined, subscriber, options.after, this.options.retentionMs);
      } catch (error) {
        subscriber.channel.end();
        throw error;
      }
      if (joined.ended.has(subscriber.topic)) subscriber.channel.end();
    } else {
      void this.welcome(joined, subscriber, options.includeCurrent ?? false);
    }
    return subscriber.channel as Channel<T>;
  }

  /** Stops every entry and ends every subscription (server shutdown). */
  close(): void {
    this.closed = true;
    this.stopAppends();
    for (const entry of [...this.entries.values()]) {
      // Ending the last subscriber of a key stops its entry.
      for (const subscriber of [...entry.subscribers]) subscriber.channel.end();
    }
  }

  private createEntry<E extends LiveEvent>(key: string, createFeed: () => Feed<E>): Entry<E> {
    let markReady = () => undefined as void;
    const whenReady = new Promise<void>((resolve) => (markReady = resolve));
    let report = IDLE;
    const entry: Entry<E> = {
      key,
      createFeed,
      subscribers: new Set(),
      lease: null,
      feed: null,
      baseline: true,
      view: null,
      ended: new Set(),
      position: null,
      handed: null,
      bridgeDue: false,
      ready: false,
      whenReady,
      markReady: () => {
        entry.ready = true;
        markReady();
      },
      reading: null,
      readAgain: false,
      sinceRead: SWEEP_TICKS,
      committed: null,
      stopped: false,
      poller: new Poller(this.options.schedule, {
        run: async (signal) => {
          report = await this.tick(entry, signal);
        },
        onSuccess: ({ durationMs }) => {
          if (report.polled) this.notify((l) => l.onPoll?.({ key, baseline: report.baseline, durationMs, events: report.events }));
        },
        onFailure: (failure) => this.notify((l) => l.onPollError?.({ key, ...failure })),
      }),
    };
    this.entries.set(key, entry as Entry<LiveEvent>);
    this.notify((l) => l.onPollerStart?.(key));
    entry.poller.start();
    return entry;
  }

  /** One interval of an entry: with the shared store if it answers, alone if it does not (or stops mid-tick). */
  private async tick<E extends LiveEvent>(entry: Entry<E>, signal: AbortSignal): Promise<TickReport> {
    if (this.options.store.healthy) {
      try {
        return await this.sharedTick(entry, signal);
      } catch (error) {
        if (this.options.store.healthy) throw error;
      }
    }
    // The lease (if Redis still has it) and the leader's feed are left behind: back with Redis, the entry
    // claims again and continues from the stored snapshot, never from a poll whose commit may have failed.
    entry.lease = null;
    entry.feed = null;
    entry.bridgeDue = true;
    return this.pollView(entry, signal);
  }

  /** Claim the lease; poll and commit if held; read the log; then the bridge poll if one is due. */
  private async sharedTick<E extends LiveEvent>(entry: Entry<E>, signal: AbortSignal): Promise<TickReport> {
    const { store } = this.options;
    if (!entry.view) await this.loadView(entry);
    // An entry that started while Redis was unreachable has a view but no place in the shared log yet: from its
    // end on (the bridge poll covers what came before).
    else entry.position ??= await store.tail(entry.key);
    const lease = await store.claim(entry.key);
    if (entry.stopped) return IDLE;
    if (!lease) {
      entry.lease = null;
      entry.feed = null;
    } else if (!entry.lease || entry.lease.token !== lease.token || !entry.feed) {
      await this.lead(entry, lease);
    }

    let report = IDLE;
    let appended = false;
    if (entry.lease && entry.feed) {
      const { feed, lease: held } = entry;
      const baseline = entry.baseline;
      this.notify((l) => l.onPollStart?.(entry.key));
      // A failed poll leaves the feed's state untouched, so the lease and the state stay this replica's.
      const outcome = await feed.poll(signal, baseline);
      const newlyEnded = [...new Set(outcome.ended)].filter((topic) => !entry.ended.has(topic));
      const logged: Logged<E>[] = [...(baseline ? [] : outcome.events.map((event) => ({ event }))), ...newlyEnded.map((end) => ({ end }))];
      const state: StoredState = { feed: feed.snapshot(), ended: [...entry.ended, ...newlyEnded] };
      const encoded = encode(state);
      // A quiet poll changes nothing in Redis: the snapshot is written when it changed, and at least every half
      // retention so it does not expire under a key that is still watched.
      const unchanged =
        logged.length === 0 &&
        entry.view !== null &&
        encoded === entry.committed?.state &&
        Date.now() - entry.committed.at < this.options.retentionMs / 2;
      let committed: LogPosition | null = null;
      try {
        if (!unchanged) {
          committed = await store.commit(
            entry.key,
            held.token,
            encoded,
            logged.map((l) => encode(l)),
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
        this.notify((l) => l.onPublish?.(published));
        report = { polled: true, baseline, events: published };
        if (!entry.view && committed) this.adoptView(entry, state, committed);
      }
    }
    // The log is read when pub/sub says it grew (see the constructor); here only after this replica's own events,
    // when the view may lack something, and as a slow sweep.
    entry.sinceRead += 1;
    if (appended || entry.bridgeDue || entry.sinceRead >= SWEEP_TICKS) await this.catchUp(entry);
    // The bridge: once the key's snapshot exists again, one poll of the view finds what the log may lack.
    if (entry.bridgeDue && entry.view && (report.polled || (await store.snapshot(entry.key)))) {
      const bridge = await this.pollView(entry, signal);
      entry.bridgeDue = false;
      if (!report.polled) report = bridge;
    }
    return report;
  }

  /** The view, and the log position to read from, from the stored snapshot; not ready while there is none. */
  private async loadView<E extends LiveEvent>(entry: Entry<E>): Promise<void> {
    const snapshot = await this.options.store.snapshot(entry.key);
    if (snapshot?.position && !entry.view) this.adoptView(entry, decode<StoredState>(snapshot.state), snapshot.position);
  }

  private adoptView<E extends LiveEvent>(entry: Entry<E>, state: StoredState, position: LogPosition): void {
    const view = entry.createFeed();
    view.restore(state.feed);
    for (const topic of state.ended) entry.ended.add(topic as E['topic']);
    entry.view = view;
    entry.position = position;
    entry.handed = position;
    if (!entry.ready) entry.markReady();
  }

  /**
   * This replica now holds the key's lease: continue from the stored snapshot; with none, from the view (a
   * Redis that restarted empty: the changes since the view are this poll's events, none lost or repeated);
   * with no view either (a key nobody watched), take a baseline.
   */
  private async lead<E extends LiveEvent>(entry: Entry<E>, lease: Lease): Promise<void> {
    const snapshot = await this.options.store.snapshot(entry.key);
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
    if (lease.takenFrom) this.notify((l) => l.onTakeover?.({ key: entry.key, from: lease.takenFrom! }));
  }

  /**
   * Polls the view itself, without the shared store: what it finds is exactly what this replica's subscribers
   * have not been handed. The events go to the replica's own log (for their cursors) and straight out.
   */
  private async pollView<E extends LiveEvent>(entry: Entry<E>, signal: AbortSignal): Promise<TickReport> {
    const baseline = !entry.view;
    const view = entry.view ?? entry.createFeed();
    this.notify((l) => l.onPollStart?.(entry.key));
    const outcome = await view.poll(signal, baseline);
    if (entry.stopped) return IDLE;
    entry.view ??= view;
    const newlyEnded = [...new Set(outcome.ended)].filter((topic) => !entry.ended.has(topic));
    const logged: Logged<E>[] = [...(baseline ? [] : outcome.events.map((event) => ({ event }))), ...newlyEnded.map((end) => ({ end }))];
    const { positions, tail } = await this.options.store.appendLocal(
      entry.key,
      logged.map((l) => encode(l)),
    );
    // The poll already moved the view: every entry it found is news.
    logged.forEach((l, i) => this.fanOut(entry, positions[i]!, l, true));
    entry.handed = tail;
    if (!entry.ready) entry.markReady();
    const events = logged.length - newlyEnded.length;
    this.notify((l) => l.onPublish?.(events));
    return { polled: true, baseline, events };
  }

  /** Reads the key's log from where this replica is and hands each entry to its subscribers. One read at a time. */
  private catchUp<E extends LiveEvent>(entry: Entry<E>): Promise<void> {
    if (entry.reading) {
      entry.readAgain = true;
      return entry.reading;
    }
    const { store } = this.options;
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
        if (read.entries.length > 0) this.notify((l) => l.onReceive?.(read.entries.length));
        for (const logEntry of read.entries) {
          const position = { epoch: read.epoch, id: logEntry.id };
          entry.position = position;
          const logged = decode<Logged<E>>(logEntry.data);
          const applied = 'end' in logged || !entry.view ? 'applied' : entry.view.apply(logged.event);
          if (applied === 'unsure') entry.bridgeDue = true;
          this.fanOut(entry, position, logged, applied === 'applied');
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
  private fanOut<E extends LiveEvent>(entry: Entry<E>, position: LogPosition, logged: Logged<E>, news: boolean): void {
    if ('end' in logged) entry.ended.add(logged.end);
    if (news) entry.handed = position;
    for (const subscriber of [...entry.subscribers]) {
      if (subscriber.state === 'live' && news) this.deliver(entry, subscriber, position, logged);
      else if (subscriber.state === 'resuming') subscriber.buffer.push({ position, logged });
    }
  }

  /** A new subscriber's start once a view exists: its current state if asked, then live events. */
  private async welcome<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>, includeCurrent: boolean): Promise<void> {
    await entry.whenReady;
    if (subscriber.channel.isClosed) return;
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
  private async resume<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>, from: LogPosition, maxAgeMs?: number): Promise<void> {
    subscriber.state = 'resuming';
    subscriber.buffer = [];
    const { store } = this.options;
    const read = await store.read(entry.key, from, maxAgeMs).catch((error: unknown) => {
      // The read is what told the replica Redis hangs (it timed out): the client hears why, not an internal error.
      if (store.healthy) throw error;
      return { expired: true, reason: EXPIRY.unreachable } as const;
    });
    if (read.expired) throw 'ahead' in read ? cursorAhead() : cursorExpired(read.reason);
    subscriber.position = from;
    for (const logEntry of read.entries) this.deliver(entry, subscriber, { epoch: read.epoch, id: logEntry.id }, decode<Logged<E>>(logEntry.data));
    const buffered = subscriber.buffer;
    subscriber.buffer = [];
    subscriber.state = 'live';
    for (const { position, logged } of buffered) this.deliver(entry, subscriber, position, logged);
  }

  private deliver<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>, position: LogPosition, logged: Logged<E>): void {
    if (!isAfter(position.epoch, position.id, subscriber.position)) return;
    subscriber.position = position;
    if ('end' in logged) {
      if (logged.end === subscriber.topic) subscriber.channel.end();
      return;
    }
    if (logged.event.topic !== subscriber.topic) return;
    send(subscriber, logged.event, encodeCursor({ key: entry.key, ...position }));
  }

  private unsubscribe<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>): void {
    entry.subscribers.delete(subscriber);
    if (entry.subscribers.size > 0 || this.entries.get(entry.key) !== (entry as Entry<LiveEvent>)) return;
    entry.stopped = true;
    entry.poller.stop();
    this.entries.delete(entry.key);
    if (entry.lease) void this.options.store.release(entry.key, entry.lease.token).catch(() => undefined);
    entry.lease = null;
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

function send<E extends LiveEvent>(subscriber: Subscriber<E>, event: E, cursor: string): void {
  const value = subscriber.select(event, cursor);
  if (value !== undefined) subscriber.channel.push(value);
}
