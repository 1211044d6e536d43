import { randomUUID } from 'node:crypto';
import type { RedisLimits } from '../cluster/shared-limits.js';

// How many gateway replicas share this Redis, for the one thing that needs it: while Redis does not answer,
// each replica admits its share of a key's rate limit (the limit divided by the replicas), so the cluster as a
// whole still admits about the limit. Each replica refreshes an entry of a sorted set (member: its id, score:
// when the entry lapses, on Redis's clock) and reads the number of live entries in the same script
// (cluster/shared-limits.ts). A replica that dies drops out after three missed beats; the count stays at its
// last value while Redis is unreachable.

const HEARTBEAT_MS = 1_000;
const ENTRY_TTL_MS = 3 * HEARTBEAT_MS;

export interface ReplicaRegistry {
  /** Replicas with a live entry, this one included, as last read; 1 until the first read. */
  readonly count: number;
  /** Stops the heartbeat and removes this replica's entry, so the others count one fewer at once. */
  close(): Promise<void>;
}

export interface ReplicaRegistryOptions {
  /** The longest a beat may wait for Redis (REDIS_COMMAND_TIMEOUT_MS); a beat that takes longer is missed. */
  timeoutMs: number;
  /** Told when the count changes. */
  onChange?(count: number): void;
}

export function startReplicaRegistry(redis: RedisLimits, { timeoutMs, onChange }: ReplicaRegistryOptions): ReplicaRegistry {
  const id = randomUUID();
  let count = 1;
  let lastReading = 1;
  // One beat at a time: a hung Redis must not pile up a beat per interval.
  let beating = false;

  /** The command's answer, or a rejection once `timeoutMs` has passed. */
  const bounded = async <T>(command: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('Redis did not answer in time')), timeoutMs)));
    try {
      return await Promise.race([command, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };

  const beat = async () => {
    if (beating) return;
    beating = true;
    try {
      const reading = Number(await bounded(redis.beat(id, ENTRY_TTL_MS)));
      // A lower count is believed once the next beat confirms it. After Redis hung for longer than an entry
      // lasts, the first beat it answers finds the other replicas' entries lapsed while their refreshes still
      // wait behind it: taken at once, that reading would make this replica's share of the limit too large.
      const next = reading >= count ? reading : Math.max(reading, lastReading);
      lastReading = reading;
      if (next !== count) {
        count = next;
        onChange?.(count);
      }
    } catch {
      // Redis unreachable or slow: the last count stands, which is what the rate limit's fallback wants.
    } finally {
      beating = false;
    }
  };
  const interval = setInterval(() => void beat(), HEARTBEAT_MS);
  interval.unref();
  void beat();

  return {
    get count() {
      return count;
    },
    async close() {
      clearInterval(interval);
      await bounded(redis.leave(id)).catch(() => undefined);
    },
  };
}
