// What the hub asks of a feed: the upstream state of one key, polled and diffed, and the events it finds.

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
