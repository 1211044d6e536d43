import { LRUCache } from 'lru-cache';
import type { CacheClaim, SharedCacheStore } from '../cluster/cache-store.js';
import { decode, encode } from '../cluster/codec.js';
import { KeyedRegistry } from '../shared/registry.js';
import { stamp } from './observed.js';
import { spanEvent } from '../telemetry/spans.js';
import { mayAnswerStale } from './stale.js';

// The read cache of upstream answers: one per gateway, under every operation's loaders (cached-client.ts
// decides what goes through it). Two layers:
//   - this replica's memory: an LRU bounded in bytes (an entry's size is its JSON text), always;
//   - in cluster mode, Redis (cluster/cache-store.ts), shared by the replicas: a miss in memory asks Redis, and
//     only the replica that claims the fill reads the upstream while the others wait for its answer.
// Concurrent reads of one entry in one process share one load, unless it was sent longer than CACHE_TTL_MS
// ago or its group was invalidated since (a read after a write must show the write). An entry answers for
// CACHE_TTL_MS from when its read was sent to the upstream (the answer may show the upstream as it stood at
// any moment from then, and a change made while a slow answer travelled is in no invalidation the load heeds),
// and is kept CACHE_STALE_IF_ERROR_MS longer for stale-if-error (stale.ts).
// Invalidation drops whole groups (one object's entries) here, in Redis, and on every replica through
// Redis's notifications; a load that began before an invalidation of its group is answered but never stored.

export type ReadOutcome = 'hit' | 'miss' | 'stale';
export type InvalidationCause = 'write' | 'poller' | 'ttl';

/**
 * Groups dropped: by this replica (`write`, `poller`), once Redis has them dropped too; or by another replica, as
 * Redis tells (`remote`; `null`: notifications may have been missed, everything may have changed).
 */
export type DropListener = (groups: string[] | null, cause: 'write' | 'poller' | 'remote') => void | Promise<void>;

export interface CacheHooks {
  onRead?(outcome: ReadOutcome): void;
  /** `entries`: groups dropped (write, poller) or entries found expired (ttl). */
  onInvalidate?(cause: InvalidationCause, entries: number): void;
}

export interface ReadCacheOptions {
  /** CACHE_TTL_MS (> 0) */
  ttlMs: number;
  /** CACHE_STALE_IF_ERROR_MS */
  staleIfErrorMs: number;
  /** CACHE_MAX_BYTES */
  maxBytes: number;
  /** Cluster mode: Redis. */
  shared?: SharedCacheStore;
  hooks?: CacheHooks;
  /**
   * How long a replica waits for another replica's fill before reading the upstream itself, and how long a
   * claim to fill lasts. Default 5 s.
   */
  fillWaitMs?: number;
}

export interface Answer<T> {
  value: T;
  /** When the read that got the value was sent to the upstream (ms since the epoch). */
  filledAt: number;
  /** An expired entry given because the upstream read failed. */
  stale: boolean;
}

export interface ReadRequest<T> {
  /** One object's entries: what an invalidation drops together. */
  group: string;
  /** Which of the group's answers (a page's query; `v` for the object itself). */
  field: string;
  fetch: () => Promise<T>;
  /** Skip the entries (Cache-Control: no-cache, a mutation's reads); the answer is still stored. */
  fresh: boolean;
  /** Whether this answer may be stored (partial or transitional answers are not). Default: yes. */
  cacheable?: (value: T) => boolean;
}

interface Entry {
  value: unknown;
  filledAt: number;
  /** The entry as Redis keeps it, "<filled at>|<JSON>": its length is its size. */
  text: string;
}

const POLL_MS = 20;
/** Invalidations remembered for loads in flight; far more than a replica's concurrent loads. */
const MAX_REMEMBERED = 10_000;

const toEntry = (text: string): Entry => {
  const bar = text.indexOf('|');
  return { filledAt: Number(text.slice(0, bar)), value: decode(text.slice(bar + 1)), text };
};
const newEntry = (value: unknown, filledAt: number): Entry => ({ value, filledAt, text: `${filledAt}|${encode(value)}` });

export class ReadCache {
  readonly #ttlMs: number;
  readonly #keepMs: number;
  readonly #fillWaitMs: number;
  readonly #shared: SharedCacheStore | undefined;
  readonly #hooks: CacheHooks;
  readonly #memory: LRUCache<string, Entry>;
  /** Keys in memory by group, for dropping a group. */
  readonly #groups = new Map<string, Set<string>>();
  /**
   * Loads under way, by key, with when each began (before its read was sent): a registry, not a Map
   * (shared/registry.ts).
   */
  readonly #loading = new KeyedRegistry<{ load: Promise<Answer<unknown>>; startedAt: number }>();
  /** A counter of invalidations; loads note it when they start. */
  #seq = 0;
  #clearedAt = 0;
  readonly #invalidatedAt = new Map<string, number>();

  constructor(options: ReadCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#keepMs = options.ttlMs + options.staleIfErrorMs;
    this.#fillWaitMs = options.fillWaitMs ?? 5_000;
    this.#shared = options.shared;
    this.#hooks = options.hooks ?? {};
    this.#memory = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.text.length),
      ttl: this.#keepMs,
      dispose: (_entry, key) => {
        const group = key.slice(0, key.indexOf('\n'));
        const keys = this.#groups.get(group);
        keys?.delete(key);
        if (keys?.size === 0) this.#groups.delete(group);
      },
    });
    options.shared?.onInvalidated((group) => {
      if (group === null) this.#clearMemory();
      else this.#dropMemory([group]);
      for (const listener of [...this.#dropListeners])
        void Promise.resolve(listener(group === null ? null : [group], 'remote')).catch(() => undefined);
    });
  }

  readonly #dropListeners = new Set<DropListener>();

  /** Live queries re-resolve on what is dropped (live/live-queries.ts); returns the removal. */
  onDropped(listener: DropListener): () => void {
    this.#dropListeners.add(listener);
    return () => this.#dropListeners.delete(listener);
  }

  read<T>(request: ReadRequest<T>): Promise<Answer<T>> {
    const key = `${request.group}\n${request.field}`;
    if (!request.fresh) {
      const kept = this.#memory.get(key);
      if (kept && this.#isFresh(kept)) return this.#answer(kept, 'hit') as Promise<Answer<T>>;
      const pending = this.#loading.get(key);
      // A load sent longer than the TTL ago answers as of then: too old to join, as an entry would be.
      if (pending && Date.now() - pending.startedAt <= this.#ttlMs) {
        this.#hooks.onRead?.('hit');
        // Joined a read already on its way; the group is not recorded (it starts with a digest of the upstream identity).
        spanEvent('cache.hit', () => ({ 'reward.cache.joined': true }));
        return pending.load as Promise<Answer<T>>;
      }
      if (kept) this.#hooks.onInvalidate?.('ttl', 1);
    }
    const startedAt = Date.now();
    const load = this.#load(key, request).finally(() => {
      if (this.#loading.get(key)?.load === load) this.#loading.delete(key);
    });
    this.#loading.set(key, { load, startedAt });
    return load;
  }

  /** Drops the groups here, in Redis and (through Redis) on every replica; resolves once Redis has them dropped. */
  async invalidate(groups: string[], cause: InvalidationCause): Promise<void> {
    const unique = [...new Set(groups)];
    if (unique.length === 0) return;
    this.#dropMemory(unique);
    this.#hooks.onInvalidate?.(cause, unique.length);
    // Redis unreachable: the other replicas' memory keeps what it has until CACHE_TTL_MS (docs/caching.md).
    await this.#shared?.invalidate(unique).catch(() => undefined);
    // After Redis: what listeners read again must not be the dropped answers. A write awaits them, so it answers
    // only once this replica's live queries have re-resolved; a poll does not wait for them.
    if (cause === 'ttl') return;
    const told = Promise.all([...this.#dropListeners].map((listener) => Promise.resolve(listener(unique, cause)).catch(() => undefined)));
    if (cause === 'write') await told;
  }

  #isFresh(entry: Entry): boolean {
    return Date.now() - entry.filledAt <= this.#ttlMs;
  }

  async #answer(entry: Entry, outcome: ReadOutcome): Promise<Answer<unknown>> {
    this.#hooks.onRead?.(outcome);
    // On the span of the loader batch or operation that read it: cache.hit, cache.miss or cache.stale.
    spanEvent(`cache.${outcome}`, () => ({ 'reward.cache.age_ms': Date.now() - entry.filledAt }));
    return { value: stamp(entry.value, entry.filledAt), filledAt: entry.filledAt, stale: outcome === 'stale' };
  }

  async #load<T>(key: string, request: ReadRequest<T>): Promise<Answer<T>> {
    const startedAt = this.#seq;
    const kept = this.#memory.get(key) ?? null;
    const shared = this.#shared;
    if (shared?.healthy) {
      const deadline = Date.now() + this.#fillWaitMs;
      for (;;) {
        const claim = await shared.claim(request.group, request.field, request.fresh ? -1 : this.#ttlMs, this.#fillWaitMs).catch(() => null);
        if (!claim) break;
        const older = claim.state === 'fresh' ? null : this.#usable(claim.entry, kept);
        if (claim.state === 'fresh') {
          const entry = toEntry(claim.entry);
          this.#remember(key, request.group, entry, startedAt);
          return this.#answer(entry, 'hit') as Promise<Answer<T>>;
        }
        if (claim.state === 'fill') return this.#fetch(key, request, startedAt, older, claim);
        // Another replica is reading it; a fresh read does not wait for an answer begun before it.
        if (request.fresh || Date.now() >= deadline) return this.#fetch(key, request, startedAt, older, null);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
    return this.#fetch(key, request, startedAt, kept, null);
  }

  /** The newer of Redis's expired entry and memory's, if either is still within the stale-if-error period. */
  #usable(text: string | null, kept: Entry | null): Entry | null {
    const fromRedis = text ? toEntry(text) : null;
    const best = fromRedis && (!kept || fromRedis.filledAt > kept.filledAt) ? fromRedis : kept;
    return best && Date.now() - best.filledAt <= this.#keepMs ? best : null;
  }

  async #fetch<T>(
    key: string,
    request: ReadRequest<T>,
    startedAt: number,
    older: Entry | null,
    claim: Extract<CacheClaim, { state: 'fill' }> | null,
  ): Promise<Answer<T>> {
    let value: T;
    const sentAt = Date.now();
    try {
      value = await request.fetch();
    } catch (error) {
      if (claim) await this.#shared?.release(request.group, request.field, claim.owner).catch(() => undefined);
      if (older && mayAnswerStale(error)) return this.#answer(older, 'stale') as Promise<Answer<T>>;
      throw error;
    }
    const entry = newEntry(value, sentAt);
    if (request.cacheable?.(value) ?? true) {
      const stored = claim ? await this.#shared!.fill(request.group, request.field, entry.text, claim, this.#keepMs).catch(() => true) : true;
      if (stored) this.#remember(key, request.group, entry, startedAt);
    } else if (claim) {
      await this.#shared?.release(request.group, request.field, claim.owner).catch(() => undefined);
    }
    return this.#answer(entry, 'miss') as Promise<Answer<T>>;
  }

  /** Keeps an entry in memory unless its group was invalidated after the load began. */
  #remember(key: string, group: string, entry: Entry, startedAt: number): void {
    if (this.#clearedAt > startedAt || (this.#invalidatedAt.get(group) ?? 0) > startedAt) return;
    const remaining = this.#keepMs - (Date.now() - entry.filledAt);
    if (remaining <= 0) return;
    this.#memory.set(key, entry, { ttl: remaining });
    let keys = this.#groups.get(group);
    if (!keys) this.#groups.set(group, (keys = new Set()));
    keys.add(key);
  }

  #dropMemory(groups: string[]): void {
    const seq = ++this.#seq;
    const dropped = new Set(groups);
    for (const group of groups) {
      this.#invalidatedAt.delete(group);
      this.#invalidatedAt.set(group, seq);
      for (const key of [...(this.#groups.get(group) ?? [])]) this.#memory.delete(key);
    }
    // Loads under way are left to finish for those waiting on them, but a read from now on does not join
    // one: it may answer what the upstream held before the change (a read after a write must show it).
    for (const key of this.#loading.keys()) if (dropped.has(key.slice(0, key.indexOf('\n')))) this.#loading.delete(key);
    // Oldest first: only loads older than all of these could still need them.
    for (const group of this.#invalidatedAt.keys()) {
      if (this.#invalidatedAt.size <= MAX_REMEMBERED) break;
      this.#invalidatedAt.delete(group);
    }
  }

  #clearMemory(): void {
    this.#clearedAt = ++this.#seq;
    this.#memory.clear();
    this.#loading.clear();
  }
}
