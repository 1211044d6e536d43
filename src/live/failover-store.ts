import { EXPIRY, type SharedStore } from '../cluster/store.js';
import type { LiveStore } from './store.js';

// Cluster mode's store as the hub and the caps see it: Redis, and this replica's own memory store for what
// must go on while Redis is unreachable (down, or hung past REDIS_COMMAND_TIMEOUT_MS). Then the hub polls for
// its own subscribers and appends what it finds to the local log (appendLocal), whose positions are cursors
// this replica can resume from; the watch caps count per replica. Lease, snapshot and log calls fail at once
// while Redis counts as down, instead of each waiting out the command timeout.

export function createFailoverStore(redis: SharedStore, local: LiveStore): LiveStore {
  const shared = <T>(call: () => Promise<T>): Promise<T> => (redis.healthy ? call() : Promise.reject(new Error('Redis is unreachable')));
  // The caps' calls: Redis while it answers, this replica's counts when it does not or the call fails (a
  // subscription is never refused because Redis stumbled).
  const either = <T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> =>
    redis.healthy ? primary().catch(() => fallback()) : fallback();
  /** Positions of the local log are read there (they mean nothing in Redis, nor Redis's locally). */
  const localPosition = async (epoch: string) => epoch === (await local.tail('')).epoch;

  return {
    owner: redis.owner,
    get healthy() {
      return redis.healthy;
    },
    claim: (key) => shared(() => redis.claim(key)),
    async release(key, token) {
      await redis.release(key, token);
    },
    snapshot: (key) => shared(() => redis.snapshot(key)),
    commit: (key, token, state, events) => shared(() => redis.commit(key, token, state, events)),
    tail: (key) => shared(() => redis.tail(key)),
    async read(key, from, maxAgeMs) {
      // The local log is this replica's while Redis is away; once Redis answers, the shared log is what holds
      // the events after it, so a local position no longer tells which the client has missed.
      if (await localPosition(from.epoch)) {
        const read = await local.read(key, from, maxAgeMs);
        return redis.healthy && !read.expired ? { expired: true, reason: EXPIRY.otherLog } : read;
      }
      return redis.healthy ? redis.read(key, from, maxAgeMs) : { expired: true, reason: EXPIRY.unreachable };
    },
    appendLocal: (key, events) => local.appendLocal(key, events),
    onAppend: (listener) => redis.onAppend(listener),
    follow: (key) => redis.follow(key),
    admit: (group, member, max) =>
      either(
        () => redis.admit(group, member, max),
        () => local.admit(group, member, max),
      ),
    async dismiss(group, member) {
      await Promise.allSettled([redis.dismiss(group, member), local.dismiss(group, member)]);
    },
    refresh: (group, members) =>
      either(
        () => redis.refresh(group, members),
        () => local.refresh(group, members),
      ),
    async close() {
      await Promise.allSettled([redis.close(), local.close()]);
    },
  };
}
