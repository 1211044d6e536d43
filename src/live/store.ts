import type { LogPosition, SharedStore } from '../cluster/store.js';

// The store as the hub sees it: what the replicas share (cluster/store.ts), and this replica's own log for what
// it finds alone while the shared store is unreachable (live/failover-store.ts).

export interface LiveStore extends SharedStore {
  /**
   * Appends events to this replica's own log, without a lease: what the replica found polling for its own
   * subscribers while the shared store was unreachable. Their positions are cursors only this replica can
   * resume from; `tail` is the log's end (the position of a state with no events).
   */
  appendLocal(key: string, events: string[]): Promise<{ positions: LogPosition[]; tail: LogPosition }>;
}
