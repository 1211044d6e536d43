import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// How many gateway replicas share this Redis, for the one thing that needs it: while Redis does not answer,
// each replica admits its share of a key's rate limit (the limit divided by the replicas), so the cluster as a
// whole still admits about the limit. Each replica refreshes an entry of a sorted set (member: its id, score:
// when the entry lapses, on Redis's clock) and reads the number of live entries in the same script. A replica
// that dies drops out after three missed beats; the count stays at its last value while Redis is unreachable.

const HEARTBEAT_MS = 1_000;
const ENTRY_TTL_MS = 3 * HEARTBEAT_MS;

// KEYS replicas; ARGV id ttl
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
`;

export interface ReplicaRegistry {
  /** Replicas with a live entry, this one included, as last read; 1 until the first read. */
  readonly count: number;
  /** Stops the heartbeat and removes this replica's entry, so the others count one fewer at once. */
  close(): Promise<void>;
}

export interface ReplicaRegistryOptions {
  /** The sorted set's key (REDIS_KEY_PREFIX + "replicas"). */
  key: string;
  /** The longest a beat may wait for Redis (REDIS_COMMAND_TIMEOUT_MS); a beat that takes longer is missed. */
  timeoutMs: number;
  /** Told when the count changes. */
  onChange?(count: number): void;
}

export function startReplicaRegistry(redis: Redis, { key, timeoutMs, onChange }: ReplicaRegistryOptions): ReplicaRegistry {
  const id = randomUUID();
  redis.defineCommand('rgReplicaBeat', { lua: BEAT, numberOfKeys: 1 });
  const commands = redis as unknown as { rgReplicaBeat(key: string, id: string, ttlMs: number): Promise<number> };
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
      const reading = Number(await bounded(commands.rgReplicaBeat(key, id, ENTRY_TTL_MS)));
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
      await bounded(redis.zrem(key, id)).catch(() => undefined);
    },
  };
}
