import type { SpanContext } from '@opentelemetry/api';
import type { Lease, LogPosition } from '../cluster/store.js';
import type { Channel } from './channel.js';
import type { Feed, LiveEvent } from './feed.js';
import type { LiveListener } from './listener.js';
import type { Poller } from './poller.js';
import type { LiveStore } from './store.js';

// What the hub keeps per watched key (an entry) and per subscription (a subscriber), and what the modules that
// work on them share (HubContext).

/**
 * What one log entry holds: an event of a topic, or the end of a topic; `cause` is the traceparent of the poll
 * that logged it, when traced, so that its delivery (on whichever replica reads it) links to that poll.
 */
export type Logged<E extends LiveEvent> = ({ event: E } | { end: E['topic'] }) & { cause?: string };

/** What the store keeps as a key's snapshot. */
export interface StoredState {
  feed: unknown;
  ended: string[];
}

type SubscriberState = 'waiting' | 'resuming' | 'live';

export interface Subscriber<E extends LiveEvent> {
  topic: E['topic'];
  select(event: E, cursor: string): unknown;
  channel: Channel<unknown>;
  state: SubscriberState;
  /** The last log position this subscriber has seen; entries at or before it are skipped. */
  position: LogPosition | null;
  /** Entries read for the key while this subscriber catches up from its own position. */
  buffer: { position: LogPosition; logged: Logged<E> }[];
}

export interface Entry<E extends LiveEvent> {
  key: string;
  /** The span of the subscription that started watching the key, when traced: each poll links to it. */
  cause: SpanContext | undefined;
  createFeed(): Feed<E>;
  poller: Poller;
  subscribers: Set<Subscriber<E>>;
  /** The lease and the feed state while this replica polls the key. */
  lease: Lease | null;
  feed: Feed<E> | null;
  baseline: boolean;
  /** The state this replica's subscribers have been handed (see the top of hub.ts); null until ready. */
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
  /** Stops the notifications of the key's appends (SharedStore.follow). */
  unfollow(): void;
}

export type TickReport = { polled: boolean; baseline: boolean; events: number };

/**
 * Ticks between reads of the log when no notification came. Pub/sub says when a key's log grew, and every key
 * is read when its connection comes back (what it lost meanwhile), so this is a last resort.
 */
export const SWEEP_TICKS = 60;
export const IDLE: TickReport = { polled: false, baseline: false, events: 0 };

/** What the hub's modules share. */
export interface HubContext {
  store: LiveStore;
  /** LIVE_RETENTION_MS */
  retentionMs: number;
  /** Calls every listener (metrics, logs). */
  notify(call: (listener: LiveListener) => void): void;
}
