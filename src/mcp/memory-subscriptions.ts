import { LRUCache } from 'lru-cache';
import { MCP_SUBSCRIPTIONS_TTL_MS, type McpSubscriptionRecords, type SubscribedResources } from '../cluster/mcp-subscriptions.js';

// MCP sessions' resource subscriptions in one process (no Redis): the same contract as the cluster's
// (cluster/mcp-subscriptions.ts), a session's subscriptions expiring when neither used nor followed for the
// same time.
//
// A session id is any UUID a caller sends, so only what holds something is kept: a session with a subscription
// or a stream following it. Unsubscribing, ending or recording what was seen in any other makes nothing (as a
// Redis hash that holds no field does not exist), and the expiry sweep runs at most once per sweep interval,
// not at every call over every session.

/** Ended session ids remembered at most: about 150 bytes each. */
const MAX_ENDED = 10_000;

interface Session {
  resources: Map<string, string>;
  /** Each stream's listener, and what replaces it: a session has one stream, the newest. */
  listeners: Map<(resources: SubscribedResources) => void, () => void>;
  usedAt: number;
}

/** The store of one process, and how many sessions it holds (what the rules above bound). */
export interface MemoryMcpSubscriptions extends McpSubscriptionRecords {
  readonly sessions: number;
}

export function memoryMcpSubscriptions(ttlMs = MCP_SUBSCRIPTIONS_TTL_MS, now: () => number = Date.now): MemoryMcpSubscriptions {
  const sessions = new Map<string, Session>();
  // Ended ids, for the same time to live; bounded, the oldest forgotten first (an id forgotten early is one its own
  // caller could start again, nothing more: a session is worth nothing to another caller).
  const ended = new LRUCache<string, true>({ max: MAX_ENDED, ttl: ttlMs, ttlResolution: 0, perf: { now } });
  const sweepEveryMs = ttlMs / 24;
  let sweptAt = now();

  /** Drops sessions unused for the time to live and followed by nobody, once per sweep interval. */
  function sweep(): void {
    if (now() - sweptAt < sweepEveryMs) return;
    sweptAt = now();
    for (const [id, { listeners, usedAt }] of sessions) if (listeners.size === 0 && now() - usedAt > ttlMs) sessions.delete(id);
  }

  /** The session, made when missing (by a subscription or a stream only). */
  function opened(id: string): Session {
    sweep();
    let found = sessions.get(id);
    if (!found) sessions.set(id, (found = { resources: new Map(), listeners: new Map(), usedAt: now() }));
    found.usedAt = now();
    return found;
  }

  /** The session if it holds something; a session left with neither subscription nor stream is dropped. */
  function existing(id: string): Session | undefined {
    sweep();
    const found = sessions.get(id);
    if (found) found.usedAt = now();
    return found;
  }

  function changed(id: string, session: Session): void {
    for (const listener of session.listeners.keys()) listener(new Map(session.resources));
    if (session.resources.size === 0 && session.listeners.size === 0) sessions.delete(id);
  }

  return {
    get sessions() {
      return sessions.size;
    },
    async subscribe(id, uri, hash, max) {
      const session = opened(id);
      const { resources } = session;
      if (!resources.has(uri) && resources.size >= max) return { subscribed: false, count: resources.size };
      resources.set(uri, hash);
      changed(id, session);
      return { subscribed: true };
    },
    async unsubscribe(id, uri) {
      const session = existing(id);
      if (!session) return;
      session.resources.delete(uri);
      changed(id, session);
    },
    async end(id) {
      ended.set(id, true);
      const session = existing(id);
      if (!session) return;
      session.resources.clear();
      changed(id, session);
    },
    ended: async (id) => ended.has(id),
    async seen(id, uri, hash) {
      const resources = existing(id)?.resources;
      if (resources?.has(uri)) resources.set(uri, hash);
    },
    follow(id, listener, replaced) {
      const followed = opened(id);
      // The older streams end (their own end removes them).
      for (const [older, replace] of [...followed.listeners]) {
        followed.listeners.delete(older);
        replace();
      }
      followed.listeners.set(listener, replaced);
      listener(new Map(followed.resources));
      return () => {
        followed.listeners.delete(listener);
        followed.usedAt = now();
        // Dropped with its last stream when it holds no subscription (and not one made again since).
        if (sessions.get(id) === followed && followed.resources.size === 0 && followed.listeners.size === 0) sessions.delete(id);
      };
    },
  };
}
