import { MCP_SUBSCRIPTIONS_TTL_MS, type McpSubscriptionRecords, type SubscribedResources } from '../cluster/mcp-subscriptions.js';

// MCP sessions' resource subscriptions in one process (no Redis): the same contract as the cluster's
// (cluster/mcp-subscriptions.ts), a session's subscriptions expiring when neither used nor followed for the
// same time.

interface Session {
  resources: Map<string, string>;
  listeners: Set<(resources: SubscribedResources) => void>;
  usedAt: number;
}

export function memoryMcpSubscriptions(ttlMs = MCP_SUBSCRIPTIONS_TTL_MS, now: () => number = Date.now): McpSubscriptionRecords {
  const sessions = new Map<string, Session>();

  /** The session, made when missing; sessions unused for the time to live and followed by nobody are dropped. */
  function session(id: string): Session {
    for (const [other, { listeners, usedAt }] of sessions) if (listeners.size === 0 && now() - usedAt > ttlMs) sessions.delete(other);
    let found = sessions.get(id);
    if (!found) sessions.set(id, (found = { resources: new Map(), listeners: new Set(), usedAt: now() }));
    found.usedAt = now();
    return found;
  }

  function changed(id: string): void {
    const { resources, listeners } = session(id);
    for (const listener of listeners) listener(new Map(resources));
  }

  return {
    async subscribe(id, uri, hash, max) {
      const { resources } = session(id);
      if (!resources.has(uri) && resources.size >= max) return { subscribed: false, count: resources.size };
      resources.set(uri, hash);
      changed(id);
      return { subscribed: true };
    },
    async unsubscribe(id, uri) {
      session(id).resources.delete(uri);
      changed(id);
    },
    async end(id) {
      session(id).resources.clear();
      changed(id);
    },
    async seen(id, uri, hash) {
      const { resources } = session(id);
      if (resources.has(uri)) resources.set(uri, hash);
    },
    follow(id, listener) {
      const followed = session(id);
      followed.listeners.add(listener);
      listener(new Map(followed.resources));
      return () => {
        followed.listeners.delete(listener);
        followed.usedAt = now();
      };
    },
  };
}
