import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { clusterKeys, type ClusterKeys } from './keys.js';
import { SCRIPTS, type ScriptName } from './scripts.js';

// The one place that connects to Redis: the connections and their names, the key prefix, the command timeout,
// and whether Redis counts as up or down (and why, for the operator's log). The live store (redis-store.ts)
// and the rate limit's counts (shared-limits.ts) are built on it; nothing outside src/cluster/ sees ioredis.

export interface RedisOptions {
  url: string;
  /** REDIS_KEY_PREFIX */
  prefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS: a command unanswered this long fails, and Redis counts as down until it answers. */
  commandTimeoutMs: number;
}

/** Redis as logs may name it: host and port, never the credentials of the URL. */
export function redisHost(url: string): string {
  return new URL(url).host;
}

export interface RedisConnection {
  /** The command connection. */
  readonly client: Redis;
  /** The pub/sub connection (a subscribed connection runs no other command). */
  readonly events: Redis;
  readonly keys: ClusterKeys;
  /** Whether Redis answers now. */
  readonly healthy: boolean;
  /**
   * Calls `listener` when Redis becomes reachable or unreachable (also when it is unreachable from the start),
   * with why; listeners run in the order they were added.
   */
  onStateChange(listener: (up: boolean, reason: string) => void): void;
  /** Resolves once connected, or after `timeoutMs` (the gateway serves either way). */
  connected(timeoutMs: number): Promise<boolean>;
  /** Sends a command on the watch for a hang: one that times out counts Redis as down. */
  guard<T>(command: Promise<T>): Promise<T>;
  /** Runs one of scripts.ts's scripts, guarded. */
  run(script: ScriptName, ...args: (string | number)[]): Promise<unknown>;
  /** A new epoch (P epoch), for the scripts that create it when Redis has none (it restarted empty). */
  newEpoch(): string;
  close(): void;
}

export function connectRedis({ url, prefix, commandTimeoutMs }: RedisOptions): RedisConnection {
  // Commands fail at once while disconnected instead of queueing, and after REDIS_COMMAND_TIMEOUT_MS while
  // Redis hangs with the connection open: the hub then polls locally, which is what keeps subscribers served
  // through an outage. Reconnection never gives up.
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 1_000),
  } as const;
  // Loaded here, in cluster mode only: ioredis adds ~18 MB to the RSS of a one-process gateway that never uses it.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, { ...options, commandTimeout: commandTimeoutMs, connectionName: 'reward-gateway' });
  // Pub/sub needs a connection of its own; ioredis subscribes again after every reconnect. No command timeout:
  // a SUBSCRIBE sent while Redis hangs completes when it answers, and a lost notification costs only latency.
  const events = new Redis(url, { ...options, enableOfflineQueue: true, connectionName: 'reward-gateway-events' });
  events.on('error', () => undefined);
  for (const [name, { lua, keys }] of Object.entries(SCRIPTS)) redis.defineCommand(name, { lua, numberOfKeys: keys });

  const listeners: ((up: boolean, reason: string) => void)[] = [];
  /** Null until the first connection attempt ends either way, so an unreachable Redis at start is reported too. */
  let up: boolean | null = null;
  /** While Redis counts as down with its connection open (a command timed out): the PING that asks again. */
  let probe: NodeJS.Timeout | null = null;

  const setUp = (value: boolean, reason: string) => {
    if (value && probe) clearInterval(probe);
    if (value) probe = null;
    if (up === value) return;
    up = value;
    for (const listener of listeners) listener(value, reason);
  };
  // A command that timed out on an open connection means Redis hangs (stopped, overloaded, a stalled primary):
  // it counts as down like a lost connection, and a PING every timeout tells when it answers again.
  const timedOut = () => {
    setUp(false, `a command got no answer within ${commandTimeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`);
    probe ??= setInterval(() => {
      redis.ping().then(
        () => redis.status === 'ready' && setUp(true, 'answering again'),
        () => undefined,
      );
    }, commandTimeoutMs);
    probe.unref();
  };
  let lastSentAt = 0;
  const guard = <T>(command: Promise<T>): Promise<T> => {
    lastSentAt = Date.now();
    return command.catch((error: unknown) => {
      if (error instanceof Error && error.message === 'Command timed out') timedOut();
      throw error;
    });
  };
  // A quiet replica sends Redis almost nothing (see redis-store.ts's claim), so on its own it would notice a
  // hang only at its next lease check: a PING whenever nothing was sent for half the timeout bounds detection
  // to 1.5 timeouts.
  const heartbeat = setInterval(() => {
    if (up === true && Date.now() - lastSentAt >= commandTimeoutMs / 2) guard(redis.ping()).catch(() => undefined);
  }, commandTimeoutMs / 2);
  heartbeat.unref();

  redis.on('ready', () => setUp(true, 'connected'));
  redis.on('close', () => setUp(false, up === null ? 'cannot connect' : 'connection lost'));
  // ioredis reports every failed reconnection as an error event; the state change is what matters, and the
  // first one when Redis was never reached (its code only: messages may carry the address, never credentials).
  redis.on('error', (error: NodeJS.ErrnoException) => {
    if (up === null) setUp(false, `cannot connect (${error.code ?? error.name})`);
  });

  const scripts = redis as unknown as Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;
  return {
    client: redis,
    events,
    keys: clusterKeys(prefix),
    get healthy() {
      return up === true;
    },
    onStateChange(listener) {
      listeners.push(listener);
    },
    connected(timeoutMs) {
      if (up) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          redis.off('ready', ready);
          resolve(false);
        }, timeoutMs);
        const ready = () => {
          clearTimeout(timer);
          resolve(true);
        };
        redis.once('ready', ready);
      });
    },
    guard,
    run: (script, ...args) => guard(scripts[script](...args)),
    newEpoch: () => randomUUID(),
    close() {
      if (probe) clearInterval(probe);
      clearInterval(heartbeat);
      redis.disconnect();
      events.disconnect();
    },
  };
}
