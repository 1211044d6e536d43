// What the replicas of a cluster share, behind one interface with two implementations chosen once at
// start-up: in memory (one process, live/memory-store.ts) and Redis (cluster mode, redis-store.ts). The hub
// never asks which one it has.
//
// Per watched key:
//   - a lease: the one replica that polls the upstream for the key; claims are fenced by a token that grows
//     with every new holder, and a commit under a token that no longer holds the lease is refused;
//   - the feed's snapshot (the state the next poll diffs against), written with the events it produced in one
//     atomic commit, kept for the retention period after the last commit;
//   - the event log: entries with ordered ids, trimmed by age; positions in it are the clients' cursors.

/** A position in one key's event log (see live/cursor.ts, which hands it to clients as a cursor). */
export interface LogPosition {
  epoch: string;
  id: string;
}

export interface LogEntry {
  id: string;
  /** The encoded entry (see cluster/codec.ts). */
  data: string;
}

export interface Lease {
  token: number;
  /** Set when the previous holder vanished without releasing (it crashed): this claim is a takeover. */
  takenFrom: string | null;
}

export interface Snapshot {
  state: string;
  /** The log position the state corresponds to: events after it are newer than the state. */
  position: LogPosition | null;
}

export type LogRead =
  | { expired: false; epoch: string; entries: LogEntry[] }
  /** Entries after the position are gone, or cannot be read now; `reason` says which, for the client. */
  | { expired: true; reason: string }
  /** The position is past the end of its log: no gateway issued it. */
  | { expired: true; ahead: true };

/** Why a position can no longer be read (the end of CURSOR_EXPIRED's message). */
export const EXPIRY = {
  retention: 'it is older than the retention period (LIVE_RETENTION_MS) or its events were trimmed',
  otherLog:
    'it is of an event log that no longer exists here (Redis restarted empty, or the cursor was issued by one replica while Redis was unreachable)',
  unreachable: 'the shared event log (Redis) is unreachable right now',
} as const;

/** What replicas share (Redis in cluster mode, memory in one process). */
export interface SharedStore {
  /** The replica's id, as holders appear in leases and logs. */
  readonly owner: string;
  /** Takes or renews the lease of `key`; null while another replica holds it. */
  claim(key: string): Promise<Lease | null>;
  /** Gives the lease up (last subscriber gone), so another replica with subscribers can take it at once. */
  release(key: string, token: number): Promise<void>;
  snapshot(key: string): Promise<Snapshot | null>;
  /**
   * Stores the new state and appends the events, atomically, if `token` still holds the lease; null when it
   * does not (a stale leader never publishes). Returns the new log position.
   */
  commit(key: string, token: number, state: string, events: string[]): Promise<LogPosition | null>;
  /** The position of the newest entry (id `0-0` for an empty log). */
  tail(key: string): Promise<LogPosition>;
  /**
   * Entries after `from`; expired when some of them were trimmed, `from` is of another log, or (with
   * `maxAgeMs`, for clients' cursors) `from` is older than that; ahead when `from` is past the log's end.
   */
  read(key: string, from: LogPosition, maxAgeMs?: number): Promise<LogRead>;
  /**
   * Calls `listener` with the key after every commit that appended, on any replica, and with null when some
   * calls may have been missed (the notifications' connection came back): every key may have grown. Returns
   * the removal.
   */
  onAppend(listener: (key: string | null) => void): () => void;
  /**
   * This replica watches `key` from now on: its appends reach `onAppend`'s listeners (notifications are per key,
   * so a replica hears of the keys it watches only). Returns the end of it.
   */
  follow(key: string): () => void;
  /** Admits `member` (a watched order) into `group` (an API key) under `max` distinct members. */
  admit(group: string, member: string, max: number): Promise<boolean>;
  /** `member` is no longer watched by this replica for `group`. */
  dismiss(group: string, member: string): Promise<void>;
  /** Keeps this replica's admissions alive (a crashed replica's expire after the lease time). */
  refresh(group: string, members: string[]): Promise<void>;
  /** Whether the shared state is reachable now (always true in memory). */
  readonly healthy: boolean;
  close(): Promise<void>;
}

export interface StoreTiming {
  /** LIVE_LEASE_MS */
  leaseMs: number;
  /** LIVE_RETENTION_MS */
  retentionMs: number;
}
