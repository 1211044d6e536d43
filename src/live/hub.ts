// The live hub: one entry per watched key on this replica, however many subscribers share it, and across the
// cluster one poller per key. Every interval an entry claims the key's lease (see cluster/store.ts): the holder
// polls the upstream, diffing against the snapshot kept in the store, and commits the new snapshot with the
// events as one fenced write; every replica with subscribers reads the key's log from where it was and fans the
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
// A subscription is accepted (subscribe resolves, the subscriber is counted) once the entry has a view, and
// starts from it: a state is known only once read (a snapshot loaded, a baseline polled), and a subscriber
// started earlier would find the changes made meanwhile in that state, never as events.
//
// The first subscriber of a key starts its entry, the last one to leave stops it (timer cleared, request in
// flight aborted, lease released so another replica's subscribers get a poller at once).
//
// Here: entries and subscriptions coming and going. One interval of an entry is tick.ts; the view, polled alone
// and as the bridge, view.ts; reading the log and fanning it out, log-reader.ts; a subscriber's start and what
// it is handed, subscriber.ts.

import type { LogPosition } from '../cluster/store.js';
import { Channel } from './channel.js';
import { IDLE, SWEEP_TICKS, type Entry, type HubContext, type Subscriber } from './entry.js';
import type { Feed, LiveEvent } from './feed.js';
import type { LiveListener } from './listener.js';
import { catchUp } from './log-reader.js';
import { Poller, type PollSchedule } from './poller.js';
import type { LiveStore } from './store.js';
import { resume, welcome } from './subscriber.js';
import { tick } from './tick.js';
import { gatewayError } from '../errors/gateway-error.js';
import { causeOfWork, detached, inRootSpan } from '../telemetry/spans.js';

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
  /** Accepted subscriptions (not those still waiting for their key's first view). */
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

export class LiveHub {
  private readonly entries = new Map<string, Entry<LiveEvent>>();
  private readonly listeners = new Set<LiveListener>();
  private readonly hub: HubContext;
  private readonly stopAppends: () => void;
  private closed = false;

  constructor(private readonly options: HubOptions) {
    this.hub = { store: options.store, retentionMs: options.retentionMs, notify: (call) => this.notify(call) };
    this.stopAppends = options.store.onAppend((key) => {
      const grown = key === null ? [...this.entries.values()] : [this.entries.get(key)];
      for (const entry of grown) if (entry) void catchUp(this.hub, entry);
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
    for (const entry of this.entries.values()) for (const subscriber of entry.subscribers) if (subscriber.state !== 'waiting') subscribers += 1;
    return { pollers: this.entries.size, subscribers };
  }

  /** Keys whose poller runs on this replica (it holds their lease). */
  leases(): number {
    let held = 0;
    for (const entry of this.entries.values()) if (entry.lease) held += 1;
    return held;
  }

  /**
   * A subscription of `key`, resolved once it is accepted: once this replica has a view of the key (at once when
   * it has one; else from the key's stored snapshot, or the first poll's baseline when there is none), which is
   * where it starts. With `after`, the events after it are queued too, or it rejects with CURSOR_EXPIRED when
   * some are no longer kept; LIVE_CAPACITY_EXCEEDED when a new key would pass the cap.
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
      if (this.entries.size >= this.options.maxPollers) throw gatewayError('LIVE_CAPACITY_EXCEEDED', { max: this.options.maxPollers });
      entry = this.createEntry(key, createFeed);
    }
    const joined: Entry<E> = entry;
    // The channel's close callback lives as long as the subscriber: it holds what it needs, not `options`.
    const { onClose } = options;
    let markLeft = () => undefined as void;
    const left = new Promise<void>((resolve) => (markLeft = resolve));
    const subscriber: Subscriber<E> = {
      topic: options.topic,
      select: options.select,
      state: 'waiting',
      position: null,
      buffer: [],
      channel: new Channel<unknown>(() => {
        markLeft();
        this.unsubscribe(joined, subscriber);
        onClose?.();
      }),
    };
    // Waiting, the subscriber keeps the entry polling but is handed nothing. A state can only be known by
    // reading it: the subscription starts from the view, so it is accepted when the view exists, not before
    // (what changed while it waited is in the view it starts from; everything after is an event).
    joined.subscribers.add(subscriber);
    await Promise.race([joined.whenReady, left]);
    if (subscriber.channel.isClosed) return subscriber.channel as Channel<T>;
    if (options.after) {
      try {
        await resume(this.options.store, joined, subscriber, options.after, this.options.retentionMs);
      } catch (error) {
        subscriber.channel.end();
        throw error;
      }
      if (joined.ended.has(subscriber.topic)) subscriber.channel.end();
    } else {
      welcome(joined, subscriber, options.includeCurrent ?? false);
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
      cause: causeOfWork(),
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
      unfollow: this.options.store.follow(key),
      poller: new Poller(this.options.schedule, {
        // Each poll is a trace of its own, linked to the subscription that started watching the key.
        run: (signal) =>
          inRootSpan(
            'live.poll',
            () => ({ links: [entry.cause], attributes: { 'reward.live.key': key } }),
            async (span) => {
              report = await tick(this.hub, entry, signal);
              if (span.isRecording()) {
                span.setAttributes({
                  'reward.live.polled': report.polled,
                  'reward.live.baseline': report.baseline,
                  'reward.live.changes': report.events,
                  'reward.live.leader': entry.lease !== null,
                  ...(entry.lease ? { 'reward.live.lease_token': entry.lease.token } : {}),
                });
              }
            },
          ),
        onSuccess: ({ durationMs }) => {
          if (report.polled) this.notify((l) => l.onPoll?.({ key, baseline: report.baseline, durationMs, events: report.events }));
        },
        onFailure: (failure) => this.notify((l) => l.onPollError?.({ key, ...failure })),
      }),
    };
    this.entries.set(key, entry as Entry<LiveEvent>);
    this.notify((l) => l.onPollerStart?.(key));
    // The polls serve every subscriber of the key, not the request that happened to start them.
    detached(() => entry.poller.start());
    return entry;
  }

  private unsubscribe<E extends LiveEvent>(entry: Entry<E>, subscriber: Subscriber<E>): void {
    entry.subscribers.delete(subscriber);
    if (entry.subscribers.size > 0 || this.entries.get(entry.key) !== (entry as Entry<LiveEvent>)) return;
    entry.stopped = true;
    entry.poller.stop();
    entry.unfollow();
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
