import type { RedisConnection } from './redis.js';

// MCP sessions' resource subscriptions, shared by the replicas: a client subscribes through whichever replica
// answers its POST, while its event stream (GET /mcp) is held by one replica, maybe another; that one follows
// the session here and learns of every subscription that comes or goes from the session's channel. In memory
// for one process: mcp/memory-subscriptions.ts. Keys: keys.ts.
//
// A session has one stream, the newest: MCP's transport sends a message on one of a session's streams, never on
// several. Each stream that follows a session claims it with Redis's clock (rgMcpStream), kept in
// P{mcp:<session>}:stream (expiring with the subscriptions) and said on the channel as `stream:<n>`; a stream
// that hears, or reads with the subscriptions, a greater number is replaced. The newest rather than the first: a client whose connection died
// unseen opens its stream again and must not be refused by the dead one.

/** Resource URI → hash of what the session's client was last told of the resource (or saw when subscribing). */
export type SubscribedResources = ReadonlyMap<string, string>;

export interface McpSubscriptionRecords {
  /**
   * Subscribes `session` to `uri`, `hash` being the resource as the client saw it then, unless it follows `max`
   * others already (then how many). Tells the session's stream.
   */
  subscribe(session: string, uri: string, hash: string, max: number): Promise<{ subscribed: true } | { subscribed: false; count: number }>;
  /** Drops one subscription, telling the session's stream. */
  unsubscribe(session: string, uri: string): Promise<void>;
  /**
   * Ends the session: drops its subscriptions, telling its stream, and marks its id ended for the subscriptions'
   * time to live, so that requests naming it are refused as MCP asks (a 404) rather than starting it again.
   */
  end(session: string): Promise<void>;
  /** Whether the session was ended (within the time to live). */
  ended(session: string): Promise<boolean>;
  /** Records that the session's client was told of `uri` as `hash`, if it is still subscribed; tells nobody. */
  seen(session: string, uri: string, hash: string): Promise<void>;
  /**
   * Calls `listener` with the session's subscriptions now and after every change (also when changes may have
   * been missed: the notifications' connection came back), keeping them from expiring meanwhile, until a newer
   * stream of the session follows it, on any replica: then `replaced` is called (once). Returns the end.
   */
  follow(session: string, listener: (resources: SubscribedResources) => void, replaced: () => void): () => void;
}

/** Unused subscriptions expire: a client that went away without ending its session leaves nothing for long. */
export const MCP_SUBSCRIPTIONS_TTL_MS = 24 * 60 * 60 * 1000;

export function redisMcpSubscriptions(connection: RedisConnection, ttlMs = MCP_SUBSCRIPTIONS_TTL_MS): McpSubscriptionRecords {
  const { client, guard, keys } = connection;
  const subs = (session: string) => keys.tagged(`mcp:${session}`, 'subs');
  const changed = (session: string) => keys.tagged(`mcp:${session}`, 'changed');
  const streams = (session: string) => keys.tagged(`mcp:${session}`, 'stream');
  const endedKey = (session: string) => keys.tagged(`mcp:${session}`, 'ended');
  const STREAM = 'stream:';
  const followed = new Set<() => void>();
  /** Per session followed here, what its stream follows and what its client was last told of each resource. */
  const told = new Map<string, Map<string, string>>();
  // What was published while the subscriptions' connection was down is lost: every followed session reads again.
  // And whatever came while Redis did not answer commands: the notifications' connection may come back before
  // the commands' does (a reread then fails), so the sessions read again when Redis answers commands too.
  const rereadAll = () => {
    for (const reread of followed) reread();
  };
  connection.onResubscribed(rereadAll);
  connection.onStateChange((up) => up && rereadAll());
  return {
    async subscribe(session, uri, hash, max) {
      const reply = Number(await connection.run('rgMcpSubscribe', subs(session), uri, hash, max, ttlMs, changed(session), connection.publishCommand));
      return reply < 0 ? { subscribed: true } : { subscribed: false, count: reply };
    },
    async unsubscribe(session, uri) {
      await guard(client.hdel(subs(session), uri));
      await connection.publish(changed(session), 'changed');
    },
    async end(session) {
      await connection.run('rgMcpEnd', endedKey(session), subs(session), ttlMs, changed(session), connection.publishCommand);
    },
    // While Redis is counted down, not asked: every MCP request naming a session would wait out the timeout first.
    ended: async (session) => connection.healthy && (await guard(client.exists(endedKey(session)))) === 1,
    async seen(session, uri, hash) {
      await connection.run('rgMcpSeen', subs(session), uri, hash);
      const following = told.get(session);
      if (following?.has(uri)) following.set(uri, hash);
    },
    follow(session, listener, replaced) {
      let ended = false;
      /** This stream's number; null until Redis gave it (or while it cannot: the stream is then never replaced). */
      let mine: number | null = null;
      const newer = (n: number) => {
        if (ended || mine === null || !(n > mine)) return;
        ended = true;
        replaced();
      };
      /** What this stream follows, as it last read it and as its client was since told: what it writes back if Redis lost it. */
      let following = new Map<string, string>();
      /** A restore in flight: reads meanwhile are not taken (one may see Redis still empty, and empty the stream). */
      let restoring = false;
      /** The number before a restore that got no answer: it may or may not have been applied. */
      let unanswered: number | null = null;
      const follows = (resources: Map<string, string>) => {
        following = resources;
        told.set(session, following);
        listener(new Map(following));
      };
      const reread = () => {
        void Promise.all([guard(client.hgetall(subs(session))), guard(client.get(streams(session)))]).then(
          ([all, newest]) => {
            if (ended || restoring) return;
            // Redis restarted empty: neither the subscriptions nor any stream's claim are left. The stream keeps
            // what it follows, and writes it back once it knows its own claim.
            if (newest === null && Object.keys(all).length === 0 && following.size > 0) {
              const from = mine ?? unanswered;
              if (from !== null) restore(from);
              return;
            }
            // A restore that got no answer was applied after all, with a number this stream does not know: a claim
            // of its own makes it the newest again (it was), and numbered.
            if (mine === null && unanswered !== null) {
              unanswered = null;
              claim();
            }
            newer(Number(newest));
            if (!ended) follows(new Map(Object.entries(all)));
          },
          // Redis unreachable: the stream keeps what it follows; the next change or reconnection reads again.
          () => undefined,
        );
      };
      // This stream, the session's newest, still knows what its client subscribed to (and what it was last told),
      // so it writes that back rather than leave the client following nothing. Its claim is unknown meanwhile (its
      // own message on the channel may come before the reply, or the reply be lost): it is not replaced by it.
      const restore = (before: number) => {
        restoring = true;
        mine = null;
        unanswered = null;
        const pairs = [...following].flat();
        void connection
          .run('rgMcpRestore', subs(session), streams(session), endedKey(session), ttlMs, changed(session), connection.publishCommand, ...pairs)
          .then(
            (n) => {
              restoring = false;
              if (Number(n) === -1) {
                // Ended since Redis came back: nothing to follow.
                mine = before;
                follows(new Map());
                return;
              }
              mine = Number(n) > 0 ? Number(n) : before;
              reread();
            },
            () => {
              // No answer: the next read tells whether it was applied (then the stream claims a number of its own) or
              // not (then it restores again).
              restoring = false;
              unanswered = before;
              reread();
            },
          );
      };
      const claim = () =>
        void connection.run('rgMcpStream', streams(session), ttlMs, changed(session), connection.publishCommand).then(
          (n) => (mine = Number(n)),
          () => undefined,
        );
      // Kept from expiring while followed: a quarter of the time to live, so a missed refresh or two do no harm.
      const refresh = setInterval(() => {
        void guard(client.pexpire(subs(session), ttlMs)).catch(() => undefined);
        void guard(client.pexpire(streams(session), ttlMs)).catch(() => undefined);
      }, ttlMs / 4);
      refresh.unref();
      const unsubscribe = connection.subscribe(changed(session), (message) =>
        message.startsWith(STREAM) ? newer(Number(message.slice(STREAM.length))) : reread(),
      );
      followed.add(reread);
      reread();
      claim();
      return () => {
        ended = true;
        if (told.get(session) === following) told.delete(session);
        clearInterval(refresh);
        unsubscribe();
        followed.delete(reread);
      };
    },
  };
}
