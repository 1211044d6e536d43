import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Cluster, ClusterOptions, Redis, RedisOptions as ClientOptions } from 'ioredis';
import { clusterKeys, type ClusterKeys } from './keys.js';
import { SCRIPTS, type ScriptName } from './scripts.js';
import type { HostPort, RedisTarget } from './target.js';
import { markStoreFailure } from './store-failure.js';

// The one place that connects to Redis, in whichever of its three forms the operator runs (one server, a
// primary with replicas behind Sentinel, a sharded Redis Cluster): the connections and their names, the key
// prefix, the command timeout, pub/sub, and whether Redis counts as up or down (and why, for the operator's
// log). The live store (redis-store.ts) and the rate limit's counts (shared-limits.ts) are built on it; nothing
// outside src/cluster/ sees ioredis. ioredis does the forms' work: Sentinel (asking the sentinels for the
// primary, and again after a promotion) and Cluster (slots, redirections, failovers, sharded pub/sub).
//
// A feature that keeps something in Redis uses `client` (one server or a Cluster: the same commands, as long
// as every script and multi-key command stays in one slot: keys.ts's hash tag rule), `guard`/`run` for what
// must count Redis as down when it stops answering, and `publish`/`subscribe` for notifications.

export interface RedisOptions {
  target: RedisTarget;
  /** REDIS_TLS: TLS to every server (and sentinel); a `rediss://` URL turns it on too. */
  tls?: boolean | undefined;
  /** REDIS_USERNAME / REDIS_PASSWORD of the data servers, for the sentinel and cluster forms (a URL carries its own). */
  username?: string | undefined;
  password?: string | undefined;
  /** REDIS_KEY_PREFIX */
  prefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS: a command unanswered this long fails, and Redis counts as down until it answers. */
  commandTimeoutMs: number;
}

/** A connection to one server (directly or found through Sentinel) or to a Redis Cluster. */
export type RedisClient = Redis | Cluster;

export interface RedisConnection {
  /** The command connection. */
  readonly client: RedisClient;
  readonly keys: ClusterKeys;
  /** The command a script publishes with: PUBLISH, or SPUBLISH (sharded pub/sub) on a Cluster. */
  readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  /** Publishes `message` on `channel` (named with keys.ts's `tagged`), guarded. */
  publish(channel: string, message: string): Promise<unknown>;
  /**
   * Calls `listener` with every message published on `channel` from now on; returns the removal. Subscriptions
   * come back by themselves after a reconnection or a failover, but what was published meanwhile is lost:
   * `onResubscribed` says when that may have happened.
   */
  subscribe(channel: string, listener: (message: string) => void): () => void;
  /** Calls `listener` whenever the subscriptions' connection came back (messages may have been missed). */
  onResubscribed(listener: () => void): void;
  /** Whether Redis answers now. */
  readonly healthy: boolean;
  /**
   * Calls `listener` when Redis becomes reachable or unreachable (also when it is unreachable from the start),
   * with why; listeners run in the order they were added.
   */
  onStateChange(listener: (up: boolean, reason: string) => void): void;
  /** Resolves once connected, or after `timeoutMs` (the gateway serves either way). */
  connected(timeoutMs: number): Promise<boolean>;
  /**
   * Sends a command on the watch for Redis failing: one unanswered within the timeout, or failing because no
   * server can take it (connection lost, a failover under way), counts Redis as down until it answers again.
   */
  guard<T>(command: Promise<T>): Promise<T>;
  /** Runs one of scripts.ts's scripts, guarded. */
  run(script: ScriptName, ...args: (string | number)[]): Promise<unknown>;
  /** A new epoch, for the scripts that create a key's epoch when Redis has none (it lost the key's data). */
  newEpoch(): string;
  close(): void;
}

/** Replies that mean no server can take the command now (a failover or a resync under way), not a bad command. */
const UNAVAILABLE = /^(CLUSTERDOWN|READONLY|LOADING|MASTERDOWN|TRYAGAIN|NOREPLICAS|MOVED|ASK)\b/;
const TIMED_OUT = 'Command timed out';

function unavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name !== 'ReplyError' || UNAVAILABLE.test(error.message);
}

export function connectRedis({ target, tls, username, password, prefix, commandTimeoutMs }: RedisOptions): RedisConnection {
  // Commands fail at once while disconnected instead of queueing, and after REDIS_COMMAND_TIMEOUT_MS while
  // Redis hangs with the connection open: the hub then polls locally, which is what keeps subscribers served
  // through an outage or a failover. Reconnection never gives up.
  const retryStrategy = (attempt: number) => Math.min(50 * attempt, 1_000);
  const secure = tls === true || ('url' in target && target.url.startsWith('rediss:'));
  const base: ClientOptions = {
    maxRetriesPerRequest: 0,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(secure ? { tls: {} } : {}),
  };
  // Loaded here, in cluster mode only: ioredis adds ~18 MB to the RSS of a one-process gateway that never uses it.
  const ioredis = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const isCluster = 'clusterNodes' in target;

  const single = (server: Exclude<RedisTarget, { clusterNodes: HostPort[] }>, name: string, queue: boolean): Redis => {
    const options: ClientOptions = {
      ...base,
      enableOfflineQueue: queue,
      retryStrategy,
      connectionName: name,
      // A primary demoted under a live connection (a failover behind a fixed address) answers writes with
      // READONLY: reconnect, which finds the new primary.
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
    };
    if ('url' in server) return new ioredis.Redis(server.url, options);
    return new ioredis.Redis({
      ...options,
      sentinels: server.sentinels,
      name: server.master,
      ...(server.sentinelPassword ? { sentinelPassword: server.sentinelPassword } : {}),
      ...(secure ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      // While no sentinel answers, ask them again every second, forever.
      sentinelRetryStrategy: () => 1_000,
    });
  };
  const cluster = (nodes: HostPort[], name: string, queue: boolean, sharded: boolean): Cluster => {
    const options: ClusterOptions = {
      enableOfflineQueue: queue,
      clusterRetryStrategy: retryStrategy,
      // A failover makes commands bounce for a moment (CLUSTERDOWN, TRYAGAIN, a dead node): retried briefly,
      // then the command fails and the replica polls locally until the promoted replica answers.
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      maxRedirections: 4,
      slotsRefreshTimeout: Math.min(1_000, commandTimeoutMs),
      shardedSubscribers: sharded,
      redisOptions: { ...base, connectionName: name },
      // Managed clusters with TLS announce their nodes by name: the certificates are for those names.
      ...(secure ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    };
    return new ioredis.Cluster(nodes, options);
  };

  const redis: RedisClient =
    'clusterNodes' in target ? cluster(target.clusterNodes, 'reward-gateway', false, false) : single(target, 'reward-gateway', false);
  // Pub/sub needs a connection of its own; ioredis subscribes again after every reconnect (on a Cluster, to the
  // primary now serving each channel's slot). No command timeout: a SUBSCRIBE sent while Redis hangs completes
  // when it answers, and a lost notification costs only latency.
  const events: RedisClient =
    'clusterNodes' in target ? cluster(target.clusterNodes, 'reward-gateway-events', true, true) : single(target, 'reward-gateway-events', true);
  events.on('error', () => undefined);
  for (const [name, { lua, keys }] of Object.entries(SCRIPTS)) redis.defineCommand(name, { lua, numberOfKeys: keys });

  const listeners: ((up: boolean, reason: string) => void)[] = [];
  /** Null until the first connection attempt ends either way, so an unreachable Redis at start is reported too. */
  let up: boolean | null = null;
  /** While Redis counts as down with a connection open: the check that asks again. */
  let probe: NodeJS.Timeout | null = null;

  const setUp = (value: boolean, reason: string) => {
    if (value && probe) clearInterval(probe);
    if (value) probe = null;
    if (up === value) return;
    up = value;
    for (const listener of listeners) listener(value, reason);
  };
  const bounded = <T>(command: Promise<T>): Promise<T> => {
    // The one command timer (ioredis's own would start only once a server is chosen, after a Cluster's
    // redirections and retries). When it is due, the verdict waits for this turn of the loop's I/O: an answer
    // that came while the replica's own loop was held (a long GC pause, a starved CPU) is read first. Without
    // that wait a loaded replica took its own stall for Redis hanging: the command failed, Redis counted as
    // down, and the upstream budget, which lets an attempt out when Redis does not answer, was exceeded.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => setImmediate(() => reject(new Error(TIMED_OUT))), commandTimeoutMs);
    });
    return Promise.race([command, expired]).finally(() => clearTimeout(timer));
  };
  /**
   * Whether Redis answers: the server, or on a Cluster every primary serving a slot (a failover under way leaves
   * slots on a dead primary until the promoted replica is known: the slot map is asked again meanwhile).
   */
  const answers = async (): Promise<boolean> => {
    if (!isCluster) {
      await bounded((redis as Redis).ping());
      return (redis as Redis).status === 'ready';
    }
    const c = redis as Cluster;
    const owners = new Set(c.slots.map((nodes) => nodes?.[0]).filter((node): node is string => Boolean(node)));
    const nodes = new Map(c.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]));
    const missing = owners.size === 0 || [...owners].some((owner) => !nodes.has(owner));
    if (missing) {
      c.refreshSlotsCache();
      return false;
    }
    const pinged = await Promise.allSettled([...owners].map((owner) => bounded(nodes.get(owner)!.ping())));
    if (pinged.some((p) => p.status === 'rejected')) {
      c.refreshSlotsCache();
      return false;
    }
    return c.status === 'ready';
  };
  const down = (reason: string) => {
    setUp(false, reason);
    probe ??= setInterval(() => {
      answers().then(
        (yes) => yes && setUp(true, 'answering again'),
        () => undefined,
      );
    }, commandTimeoutMs);
    probe.unref();
  };
  let lastSentAt = 0;
  const guard = <T>(command: Promise<T>): Promise<T> => {
    lastSentAt = Date.now();
    return bounded(command).catch((error: unknown) => {
      // ioredis attaches the failed command with its arguments: the values written (cached answers, persisted
      // documents, a webhook endpoint with its signing secret), which any log of the error would then carry.
      if (error instanceof Error && 'command' in error) delete (error as { command?: unknown }).command;
      if (error instanceof Error && error.message === TIMED_OUT) {
        down(`a command got no answer within ${commandTimeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`);
        markStoreFailure(error);
      } else if (unavailable(error)) {
        if (up === true) down(`a command failed (${(error as Error).message.split(/[.:]/)[0]!.slice(0, 60)})`);
        markStoreFailure(error as Error);
      }
      throw error;
    });
  };
  // A quiet replica sends Redis almost nothing (see redis-store.ts's claim), so on its own it would notice a
  // hang only at its next lease check: a check whenever nothing was sent for half the timeout bounds detection
  // to 1.5 timeouts.
  const heartbeat = setInterval(() => {
    if (up === true && Date.now() - lastSentAt >= commandTimeoutMs / 2) {
      guard(answers()).then(
        (yes) => !yes && up === true && down('a server does not answer'),
        () => undefined,
      );
    }
  }, commandTimeoutMs / 2);
  heartbeat.unref();

  redis.on('ready', () => setUp(true, 'connected'));
  redis.on('close', () => setUp(false, up === null ? 'cannot connect' : 'connection lost'));
  // A Cluster stays open while one of its primaries dies: losing the connection to a server that serves slots
  // is a connection lost all the same, until its replica is promoted and known.
  let closing = false;
  redis.on('-node', (node: Redis) => {
    if (!isCluster || up !== true || closing) return;
    const key = `${node.options.host}:${node.options.port}`;
    if ((redis as Cluster).slots.some((nodes) => nodes?.[0] === key)) down('connection lost to a primary');
  });
  // ioredis reports every failed reconnection as an error event; the state change is what matters, and the
  // first one when Redis was never reached (its code only: messages may carry the address, never credentials).
  redis.on('error', (error: NodeJS.ErrnoException) => {
    if (up === null) setUp(false, `cannot connect (${error.code ?? error.name})`);
  });

  // Pub/sub: one subscription per channel however many listeners it has.
  const channels = new Map<string, Set<(message: string) => void>>();
  const resubscribed: (() => void)[] = [];
  const send = (channel: string, on: boolean): Promise<unknown> =>
    isCluster
      ? on
        ? (events as Cluster).ssubscribe(channel)
        : (events as Cluster).sunsubscribe(channel)
      : on
        ? events.subscribe(channel)
        : events.unsubscribe(channel);
  const follow = (channel: string) => {
    // On a Cluster, a subscription sent while its slot's primary is being replaced may fail: asked again
    // until it holds, as long as somebody listens.
    send(channel, true).catch(() => setTimeout(() => channels.has(channel) && follow(channel), commandTimeoutMs).unref());
  };
  events.on(isCluster ? 'smessage' : 'message', (channel: string, message: string) => {
    for (const listener of [...(channels.get(channel) ?? [])]) listener(message);
  });
  let everReady = false;
  events.on(isCluster ? 'subscribersReady' : 'ready', () => {
    if (everReady) for (const listener of resubscribed) listener();
    everReady = true;
  });

  const scripts = redis as unknown as Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;
  return {
    client: redis,
    keys: clusterKeys(prefix),
    publishCommand: isCluster ? 'SPUBLISH' : 'PUBLISH',
    publish: (channel, message) => guard(isCluster ? (redis as Cluster).spublish(channel, message) : redis.publish(channel, message)),
    subscribe(channel, listener) {
      const set = channels.get(channel) ?? new Set();
      if (!channels.has(channel)) {
        channels.set(channel, set);
        follow(channel);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size > 0 || channels.get(channel) !== set) return;
        channels.delete(channel);
        send(channel, false).catch(() => undefined);
      };
    },
    onResubscribed(listener) {
      resubscribed.push(listener);
    },
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
      closing = true;
      if (probe) clearInterval(probe);
      clearInterval(heartbeat);
      redis.disconnect();
      events.disconnect();
    },
  };
}
