import { afterEach, describe, expect, it } from 'vitest';
import { createFailoverStore } from '../../src/live/failover-store.js';
import type { Feed, LiveEvent } from '../../src/live/feed.js';
import { LiveHub } from '../../src/live/hub.js';
import { createMemoryStore } from '../../src/live/memory-store.js';
import type { Lease, SharedStore } from '../../src/cluster/store.js';
import type { LiveStore } from '../../src/live/store.js';

// The races of a Redis outage, played out by two replicas' hubs in one process. The shared store is a memory
// store with per-replica leases and a switch per replica (Redis answering that replica or not), and it can be
// "restarted empty" (a new memory store: new epoch, no snapshot). Each replica's hub runs on the real failover
// store; each polls a world of one value through a window the test can hold, so a replica can be made to have
// polled at an earlier moment than the other. Whatever the order, every subscriber gets every value once.

interface Changed extends LiveEvent {
  topic: 'value';
  from: string;
  to: string;
}

const timing = { leaseMs: 60_000, retentionMs: 60_000 };
const KEY = 'k';

/** The upstream: one value. */
let world = 'a';

/** A feed of the world's value as `read` shows it (the test holds a replica's read at an older value). */
function valueFeed(read: () => string): () => Feed<Changed> {
  return () => {
    let seen: string | null = null;
    return {
      async poll(_signal, baseline) {
        const now = read();
        const events: Changed[] = !baseline && seen !== null && now !== seen ? [{ topic: 'value', from: seen, to: now }] : [];
        seen = now;
        return { events, ended: [] };
      },
      apply(event) {
        if (seen === event.to) return 'seen';
        if (seen !== event.from) return 'unsure';
        seen = event.to;
        return 'applied';
      },
      current: () => [],
      snapshot: () => seen,
      restore: (state) => {
        seen = state as string | null;
      },
    };
  };
}

interface Replica {
  hub: LiveHub;
  /** Whether the shared store answers this replica. */
  up: boolean;
  /** While set, this replica's polls see this value instead of the world's. */
  held: string | null;
  /** How late the shared store takes this replica's snapshot reads (a slow Redis, a busy host). */
  snapshotDelayMs: number;
  /** Snapshot reads the shared store has answered this replica. */
  snapshotsRead: number;
  received: string[];
}

function createCluster() {
  let shared = createMemoryStore(timing);
  const holders = new Map<string, string>();
  const listeners = new Set<(key: string) => void>();
  const replicas: Replica[] = [];

  function sharedFor(owner: string, replica: () => Replica): SharedStore {
    const answer = <T>(call: () => Promise<T>) => (replica().up ? call() : Promise.reject(new Error('unreachable')));
    return {
      owner,
      get healthy() {
        return replica().up;
      },
      claim: (key) =>
        answer(async (): Promise<Lease | null> => {
          if ((holders.get(key) ?? owner) !== owner) return null;
          holders.set(key, owner);
          return shared.claim(key);
        }),
      release: async (key) => void (holders.get(key) === owner && holders.delete(key)),
      snapshot: (key) =>
        answer(async () => {
          const { snapshotDelayMs } = replica();
          if (snapshotDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, snapshotDelayMs));
          const snapshot = await shared.snapshot(key);
          replica().snapshotsRead += 1;
          return snapshot;
        }),
      commit: (key, token, state, events) =>
        answer(async () => {
          if (holders.get(key) !== owner) return null;
          const position = await shared.commit(key, token, state, events);
          if (position && events.length > 0) for (const listener of [...listeners]) listener(key);
          return position;
        }),
      tail: (key) => answer(() => shared.tail(key)),
      read: (key, from, maxAgeMs) => answer(() => shared.read(key, from, maxAgeMs)),
      onAppend: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      follow: () => () => undefined,
      admit: async () => true,
      dismiss: async () => undefined,
      refresh: async () => undefined,
      close: async () => undefined,
    };
  }

  return {
    replicas,
    /** A replica with a subscriber of the key; resolves once the subscription is accepted. */
    async add(options: { snapshotDelayMs?: number } = {}): Promise<Replica> {
      const owner = `r${replicas.length}`;
      const replica: Replica = {
        up: true,
        held: null,
        snapshotDelayMs: options.snapshotDelayMs ?? 0,
        snapshotsRead: 0,
        received: [],
        hub: null as unknown as LiveHub,
      };
      const store: LiveStore = createFailoverStore(
        sharedFor(owner, () => replica),
        createMemoryStore(timing),
      );
      replica.hub = new LiveHub({ store, schedule: { intervalMs: 10, jitter: 0, maxBackoffIntervals: 1 }, retentionMs: 60_000, maxPollers: 10 });
      const events = await replica.hub.subscribe(
        KEY,
        valueFeed(() => replica.held ?? world),
        { topic: 'value', select: (event: Changed) => event.to },
      );
      void (async () => {
        for await (const value of events) replica.received.push(value);
      })();
      replicas.push(replica);
      return replica;
    },
    /** Redis restarted empty: a new epoch, no snapshot, no lease. */
    restartEmpty() {
      shared = createMemoryStore(timing);
      holders.clear();
    },
    hasSnapshot: async () => (await shared.snapshot(KEY)) !== null,
    leader: () => holders.get(KEY),
    close() {
      for (const replica of replicas) replica.hub.close();
    },
  };
}

let cluster: ReturnType<typeof createCluster> | null = null;
afterEach(() => cluster?.close());

const until = (check: () => boolean | Promise<boolean>) => expect.poll(check, { interval: 5, timeout: 10_000 }).toBe(true);

/** Two replicas, both past their first poll; `a` leads. */
async function twoReplicas() {
  world = 'a';
  cluster = createCluster();
  const a = await cluster.add();
  await until(async () => await cluster!.hasSnapshot());
  const b = await cluster.add();
  // Both welcomed and live: a change now reaches both through the log.
  world = 'b';
  await until(() => a.received.length === 1 && b.received.length === 1);
  return { a, b, cluster };
}

describe('a Redis outage between two replicas', () => {
  it('the leader seeds the emptied Redis from a view older than the other replica’s: nothing repeated', async () => {
    const { a, b, cluster } = await twoReplicas();
    a.up = b.up = false;
    a.held = 'b'; // a's last poll came before the change
    world = 'c';
    await until(() => b.received.length === 2);
    cluster.restartEmpty();
    a.up = true;
    await until(() => cluster.leader() === 'r0');
    a.held = null;
    b.up = true;
    await until(() => a.received.length === 2);
    world = 'd';
    await until(() => a.received.length === 3 && b.received.length === 3);
    expect(a.received).toEqual(['b', 'c', 'd']);
    expect(b.received).toEqual(['b', 'c', 'd']);
  });

  it('the leader seeds the emptied Redis from a view newer than the other replica’s: nothing missed', async () => {
    const { a, b, cluster } = await twoReplicas();
    a.up = b.up = false;
    b.held = 'b'; // b's last poll came before the change, a's after it
    world = 'c';
    await until(() => a.received.length === 2);
    cluster.restartEmpty();
    a.up = true;
    await until(async () => await cluster.hasSnapshot());
    // The seed holds 'c', so the new log never carries b → c: b's bridge poll, after the seed, finds it.
    b.held = null;
    b.up = true;
    await until(() => b.received.length === 2);
    world = 'd';
    await until(() => a.received.length === 3 && b.received.length === 3);
    expect(a.received).toEqual(['b', 'c', 'd']);
    expect(b.received).toEqual(['b', 'c', 'd']);
  });

  it('Redis keeps its data: the leader logs what the replicas already delivered alone, and nobody gets it twice', async () => {
    const { a, b } = await twoReplicas();
    a.up = b.up = false;
    world = 'c';
    await until(() => a.received.length === 2 && b.received.length === 2);
    a.up = b.up = true;
    world = 'd';
    await until(() => a.received.length === 3 && b.received.length === 3);
    // A few more intervals: a late copy of 'c' from the log would show here.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.received).toEqual(['b', 'c', 'd']);
    expect(b.received).toEqual(['b', 'c', 'd']);
  });

  it('the leader, back last, logs changes combined against its old snapshot: the replica that disagrees asks the upstream', async () => {
    const { a, b } = await twoReplicas();
    a.up = b.up = false;
    world = 'c';
    await until(() => a.received.length === 2 && b.received.length === 2);
    // Redis answers b first; a (the leader) is still cut off when the next change comes, and finds it alone.
    b.up = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
    world = 'd';
    await until(() => a.received.length === 3);
    // a's first poll on Redis diffs against the snapshot from before the outage: one event b → d, which starts
    // from a state b's view does not show. b polls the upstream rather than guess, and gets d once.
    a.up = true;
    await until(() => b.received.length === 3);
    world = 'e';
    await until(() => a.received.length === 4 && b.received.length === 4);
    expect(a.received).toEqual(['b', 'c', 'd', 'e']);
    expect(b.received).toEqual(['b', 'c', 'd', 'e']);
  });
});

describe('where a subscription starts', () => {
  it('a replica whose snapshot read is slow: a change made after its subscription was accepted still reaches it', async () => {
    world = 'a';
    cluster = createCluster();
    // Accepted: a's subscription, at a's baseline (a leads).
    const a = await cluster.add();
    // b's first look at the key's snapshot answers late; the leader meanwhile logs what changes.
    const b = await cluster.add({ snapshotDelayMs: 50 });
    world = 'b';
    await until(() => a.received.length === 1);
    world = 'c';
    await until(() => a.received.length === 2);
    // Once b has read the snapshot, a last change, which reaches b whatever happened before.
    await until(() => b.snapshotsRead > 0);
    world = 'd';
    await until(() => a.received.length === 3 && b.received.includes('d'));
    expect(a.received).toEqual(['b', 'c', 'd']);
    expect(b.received).toEqual(['b', 'c', 'd']);
  });
});
