import type { LiveStore } from './store.js';

// Cluster mode's store as the hub sees it: Redis while it answers, this replica's own memory store while it
// does not. With Redis down every replica is its own leader (the memory store always grants the lease), so
// each polls for its own subscribers; once Redis answers again the Redis leases decide and there is one
// poller per key again. The leader's snapshots are also kept locally, so a leader cut off from Redis goes on
// diffing against its own state instead of taking a new baseline.

export function createFailoverStore(redis: LiveStore, local: LiveStore): LiveStore {
  // Only a lost connection means degraded mode: a command that failed on a live connection (a timeout under
  // load) fails this tick, which is retried, rather than making this replica a second poller.
  const either = <T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> => (redis.healthy ? primary() : fallback());
  /** Positions of the local log are read there (they mean nothing in Redis, nor Redis's locally). */
  const localPosition = async (epoch: string) => epoch === (await local.tail('')).epoch;

  return {
    owner: redis.owner,
    get healthy() {
      return redis.healthy;
    },
    claim: (key) =>
      either(
        () => redis.claim(key),
        () => local.claim(key),
      ),
    async release(key, token) {
      await Promise.allSettled([redis.release(key, token), local.release(key, token)]);
    },
    snapshot: (key) =>
      either(
        () => redis.snapshot(key),
        () => local.snapshot(key),
      ),
    async commit(key, token, state, events) {
      return either(
        async () => {
          const position = await redis.commit(key, token, state, events);
          // A copy for the degraded mode: claimed locally, committed without events.
          const copy = position ? await local.claim(key) : null;
          if (copy) await local.commit(key, copy.token, state, []);
          return position;
        },
        () => local.commit(key, token, state, events),
      );
    },
    tail: (key) =>
      either(
        () => redis.tail(key),
        () => local.tail(key),
      ),
    async read(key, from, maxAgeMs) {
      // Once Redis answers again, the local log is over: its readers move to Redis's (expired → its tail).
      if (await localPosition(from.epoch)) return redis.healthy ? { expired: true } : local.read(key, from, maxAgeMs);
      return either(
        () => redis.read(key, from, maxAgeMs),
        async () => ({ expired: true }) as const,
      );
    },
    onAppend(listener) {
      const offs = [redis.onAppend(listener), local.onAppend(listener)];
      return () => offs.forEach((off) => off());
    },
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
