// Live queries (`query … @live`): a read that is sent again, as a JSON patch or whole, whenever what it read
// changes. One replica keeps one **shared query** per distinct live query (document, variables, the caller and
// its scopes), however many viewers hold it: a change costs one re-resolution per replica, and its patch is
// computed once for every viewer.
//
// What invalidates a result is what it read, as the read cache names it (cache/cached-client.ts: an order, its
// rewards' pages, a reward, the balances). The cache already learns of every change the gateway can see, on
// every replica: its own writes (dropped before the mutation answers), the pollers' observations (observingClient),
// and both from other replicas through Redis. So a shared query re-resolves when one of its groups is dropped
// (cache/read-cache.ts onDropped), and reads what was dropped once more: one read per change for the cluster,
// the cache's fills being shared. The orders a result holds are watched through the live hub (live.ts
// watchOrder: one poller per order for the cluster, shared with subscriptions and webhooks), up to
// LIVE_QUERY_MAX_WATCHED_ORDERS; whatever nothing watches (orders past the cap, the balances, account-wide
// lists) is read again every `refreshMs` (CACHE_TTL_MS), and the result says so in `extensions.live`.
//
// @n1ru4l/in-memory-live-query-store was read and not taken: it re-executes every viewer's query on its own (no
// sharing between identical ones), with the viewer's own context (its DataLoaders' cache would answer a
// re-resolution from the first one), collects identifiers by wrapping every resolver of a copy of the schema
// (which the compiled execution would not run), and pushes unchanged results. Its way of keying results by the
// entities read is kept, the keys being the read cache's groups. Patches are the JSON patches (RFC 6902) of
// @n1ru4l/graphql-live-query-patch-json-patch, made once per change with its generateJSONPatch and sent with each
// viewer's own revision, so `applyLiveQueryJSONPatch` on the client rebuilds every result.
//
// Reconnecting: a viewer's revisions are its own, so a revision alone names nothing another replica (or this one,
// later) knows. A client that asks to resume is sent, with each payload, the hash of the data it now holds
// (`extensions.liveHash`: the same on every replica for the same data, the execution's field order being the
// document's), and reconnects with that hash and its revision. A shared query keeps its last RESUMABLE_RESULTS
// results by hash: a known hash gets a patch from that result (empty when it is the current one) as the next
// revision; an unknown one gets the whole result as revision 1, after a read past the cache (the client may hold
// something newer than this replica has seen), so nothing is patched against a base the client lacks and
// nothing older than what it had is sent. A result from stale data keeps its `extensions.stale`, patch or whole.

import { createHash } from 'node:crypto';
import { noDiffSymbol } from '@n1ru4l/graphql-live-query-patch';
import { generateJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { Channel } from './channel.js';
import type { SubscriptionCap } from './subscription-cap.js';
import type { SpanContext } from '@opentelemetry/api';
import { causeOfWork, inRootSpan } from '../telemetry/spans.js';

/** One JSON Patch operation (RFC 6902). */
type Operation = Exclude<ReturnType<typeof generateJSONPatch>, typeof noDiffSymbol>[number];

/** What one resolution of a live query gives. */
export interface LiveRound {
  data?: Record<string, unknown> | null;
  errors?: readonly unknown[];
  extensions?: Record<string, unknown>;
  /** Read-cache groups the round read. */
  groups: ReadonlySet<string>;
  /** Uuids of the orders it read. */
  orders: ReadonlySet<string>;
  /** Whether it read the brand catalogue or the regions. */
  catalogue?: boolean;
}

/** What a viewer receives: a whole result, or (asked for patches) the first result and then patches, with revisions. */
export interface LivePayload {
  data?: Record<string, unknown> | null;
  errors?: readonly unknown[];
  extensions?: Record<string, unknown>;
  patch?: Operation[];
  revision?: number;
}

/**
 * Why a live query was resolved: its first result; a change the read cache was told of (a write here, a poll, a
 * drop on another replica); a refresh of what nothing watches; or `watched`: the poller of one of its orders has
 * just taken its first look, and what changed before that look drops nothing, so this resolution reads past the
 * cache (the one upstream read a new watch costs).
 */
export type LiveCause = 'first' | 'write' | 'poller' | 'remote' | 'refresh' | 'watched';

/** What live queries tell metrics and tests (listen). */
export interface LiveQueryListener {
  /** A resolution finished: `changed` whether it sent anything, `seconds` how long it took. */
  onRound?(cause: LiveCause, changed: boolean, seconds: number): void;
  /** A payload sent to one viewer, with its JSON size. */
  onSend?(kind: 'result' | 'patch', bytes: number): void;
}

/** How a viewer wants its payloads. */
export interface LiveMode {
  /** JSON patches with revisions instead of whole results. */
  patches: boolean;
  /** Patch mode: tag each payload with `extensions.liveHash`, so that a reconnect can resume from it. */
  resume?: boolean;
  /** Patch mode: the revision and hash of the result the client holds (a reconnect). */
  base?: { revision: number; hash: string };
}

/** How many of its last results a shared query keeps for reconnecting clients to be patched from. */
export const RESUMABLE_RESULTS = 8;

const hashOf = (data: unknown): string => createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 22);

export interface LiveQueriesOptions {
  /**
   * Starts watching an order (live.ts watchOrder), `onWatched` once its poller has a first look, `onRefused` if
   * no poller can start (LIVE_MAX_POLLERS); returns the release.
   */
  watchOrder(uuid: string, onWatched: () => void, onRefused: () => void): () => void;
  /** LIVE_QUERY_MAX_WATCHED_ORDERS */
  maxWatchedOrders: number;
  /** How often what nothing watches is read again: CACHE_TTL_MS. */
  refreshMs: number;
  /** How often a result whose only unwatched part is the brand catalogue or the regions is read again: CATALOG_CACHE_TTL_MS. */
  catalogueRefreshMs: number;
  /** LIVE_QUERY_MAX_PER_KEY, across the cluster (subscription-cap.ts, LIVE_QUERIES). */
  cap: SubscriptionCap;
}

interface Viewer {
  channel: Channel<LivePayload>;
  patches: boolean;
  resume: boolean;
  /** The last revision this viewer was sent (patch mode). */
  revision: number;
  /** A reconnect's base, until its first payload. */
  base: { revision: number; hash: string } | null;
}

interface Shared {
  key: string;
  resolve: (fresh: boolean) => Promise<LiveRound>;
  viewers: Set<Viewer>;
  /** The last result sent, and its JSON (what an unchanged re-resolution is compared with). */
  last: LivePayload | null;
  lastJson: string | null;
  lastHash: string;
  /** The last results' data by hash, newest last (at most RESUMABLE_RESULTS). */
  history: Map<string, Record<string, unknown> | null>;
  groups: ReadonlySet<string>;
  watches: Map<string, () => void>;
  /** Orders no poller could watch (LIVE_MAX_POLLERS) when last asked. */
  refused: Set<string>;
  running: Promise<void> | null;
  again: LiveCause | null;
  /** What caused the resolutions coalesced into `again`, for its span's links. */
  againLinks: SpanContext[];
  refresh: NodeJS.Timeout | null;
  refreshEveryMs: number | null;
  closed: boolean;
}

// Groups of the balances and of the unfiltered reward pages: no poller watches them for a live query.
const UNWATCHED_GROUP = /:(funds|gifts:all)$/;

export interface LiveQueryStats {
  /** Live queries open (viewers). */
  viewers: number;
  /** Distinct live queries among them: one resolution each per change. */
  shared: number;
  /** Order watches they hold (an order held by two distinct live queries counts twice; its poller is one). */
  watchedOrders: number;
}

export class LiveQueries {
  readonly #shared = new Map<string, Shared>();
  /** Read-cache group → the shared queries that read it. */
  readonly #byGroup = new Map<string, Set<Shared>>();

  readonly #listeners = new Set<LiveQueryListener>();

  constructor(private readonly options: LiveQueriesOptions) {}

  /** Adds a listener; returns its removal. */
  listen(listener: LiveQueryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Live queries open on this replica, the distinct ones among them, and the orders they have watched. */
  stats(): LiveQueryStats {
    let viewers = 0;
    let watchedOrders = 0;
    for (const shared of this.#shared.values()) {
      viewers += shared.viewers.size;
      watchedOrders += shared.watches.size;
    }
    return { viewers, shared: this.#shared.size, watchedOrders };
  }

  #notify(call: (listener: LiveQueryListener) => void): void {
    for (const listener of this.#listeners) {
      try {
        call(listener);
      } catch {
        // A failing metrics hook must never stop a live query.
      }
    }
  }

  /**
   * A viewer of the live query `key` (equal for identical queries) for the API key `watcher`, the first
   * resolution run by `resolve` when no viewer holds it yet. The iterator yields the current result at once when
   * there is one, then changes. Rejects with LIVE_QUERIES_PER_KEY_EXCEEDED past the watcher's cap.
   */
  async open(
    key: string,
    watcher: string,
    resolve: (fresh: boolean) => Promise<LiveRound>,
    mode: LiveMode,
  ): Promise<AsyncIterableIterator<LivePayload, undefined>> {
    const onClose = await this.options.cap.admit(watcher);
    let shared = this.#shared.get(key);
    const viewer: Viewer = {
      patches: mode.patches,
      resume: mode.patches && Boolean(mode.resume || mode.base),
      revision: 0,
      base: (mode.patches && mode.base) || null,
      channel: new Channel<LivePayload>(() => {
        this.#leave(shared!, viewer);
        onClose();
      }),
    };
    if (!shared) {
      shared = {
        key,
        resolve,
        viewers: new Set([viewer]),
        last: null,
        lastJson: null,
        lastHash: '',
        history: new Map(),
        groups: new Set(),
        watches: new Map(),
        refused: new Set(),
        running: null,
        again: null,
        againLinks: [],
        refresh: null,
        refreshEveryMs: null,
        closed: false,
      };
      this.#shared.set(key, shared);
      void this.#round(shared, 'first');
    } else {
      shared.viewers.add(viewer);
      if (shared.last && (!viewer.base || shared.history.has(viewer.base.hash))) this.#send(viewer, shared, null);
      else if (shared.last) void this.#resumeAfterFreshRead(shared, viewer);
    }
    return viewer.channel;
  }

  /** A reconnect from a result this replica does not know: answered once a read past the cache is sent or unchanged. */
  async #resumeAfterFreshRead(shared: Shared, viewer: Viewer): Promise<void> {
    await this.#round(shared, 'watched');
    // A changed result has been sent to it already.
    if (viewer.revision === 0 && shared.last && shared.viewers.has(viewer)) this.#send(viewer, shared, null);
  }

  /** Re-resolves the live queries that read one of `groups` (null: all); resolves once they have sent. */
  async invalidate(groups: readonly string[] | null, cause: LiveCause): Promise<void> {
    const hit = new Set<Shared>();
    if (groups === null) for (const shared of this.#shared.values()) hit.add(shared);
    else for (const group of groups) for (const shared of this.#byGroup.get(group) ?? []) hit.add(shared);
    await Promise.all([...hit].map((shared) => this.#round(shared, cause)));
  }

  /** Ends every viewer (shutdown). */
  close(): void {
    this.options.cap.close();
    for (const shared of [...this.#shared.values()]) for (const viewer of [...shared.viewers]) viewer.channel.end();
  }

  /**
   * One resolution, or (one already running) one more after it: a change seen meanwhile may not be in it. Each
   * is a trace of its own (`live.query.resolve`), linked to what caused it where this replica saw that: the poll
   * or the operation (a write, the first result) it was started in.
   */
  #round(shared: Shared, cause: LiveCause): Promise<void> {
    const link = causeOfWork();
    if (shared.running) {
      // A fresh read covers every other cause, not the other way round.
      if (shared.again !== 'watched') shared.again = cause;
      if (link) shared.againLinks.push(link);
      return shared.running;
    }
    const run = async () => {
      let next: LiveCause | null = cause;
      let links = link ? [link] : [];
      while (next && !shared.closed) {
        shared.again = null;
        shared.againLinks = [];
        const resolving = next;
        await inRootSpan(
          'live.query.resolve',
          () => ({ links, attributes: { 'reward.live_query.cause': resolving, 'reward.live_query.viewers': shared.viewers.size } }),
          async (span) => {
            const changed = await this.#resolveOnce(shared, resolving);
            if (span.isRecording()) span.setAttribute('reward.live_query.changed', changed);
          },
        );
        next = shared.again;
        links = shared.againLinks;
      }
    };
    shared.running = run().finally(() => (shared.running = null));
    return shared.running;
  }

  /** Whether it sent anything. */
  async #resolveOnce(shared: Shared, cause: LiveCause): Promise<boolean> {
    const started = performance.now();
    let round: LiveRound;
    try {
      round = await shared.resolve(cause === 'watched');
    } catch (error) {
      // A re-resolution that fails keeps what viewers have; the first one has nothing to keep.
      if (!shared.last) for (const viewer of [...shared.viewers]) viewer.channel.fail(error);
      return false;
    }
    if (shared.closed) return false;
    this.#track(shared, round);
    const { unwatchedOrders, overPollerCap } = this.#watch(shared, round.orders);
    // Read nothing the cache tracks (the catalogue only, or the cache is off), or something no poller watches.
    const untracked = round.groups.size === 0 || [...round.groups].some((group) => UNWATCHED_GROUP.test(group));
    // Brands and regions change without any poller seeing it: read again as often as the catalogue's cache is.
    const refreshMs = unwatchedOrders > 0 || untracked ? this.options.refreshMs : round.catalogue ? this.options.catalogueRefreshMs : null;
    this.#scheduleRefresh(shared, refreshMs);
    const extensions = {
      ...round.extensions,
      ...(refreshMs !== null ? { live: { refreshMs, unwatchedOrders, ...(overPollerCap ? { overPollerCap } : {}) } } : {}),
    };
    const payload: LivePayload = {
      ...(round.errors?.length ? { errors: round.errors } : {}),
      data: round.data ?? null,
      ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
    };
    const json = JSON.stringify(payload);
    const changed = json !== shared.lastJson;
    const seconds = (performance.now() - started) / 1000;
    this.#notify((l) => l.onRound?.(cause, changed, seconds));
    if (!changed) return false;
    const previous = shared.last;
    shared.last = payload;
    shared.lastJson = json;
    shared.lastHash = hashOf(payload.data ?? null);
    // Re-set so that a result seen again counts as the newest.
    shared.history.delete(shared.lastHash);
    shared.history.set(shared.lastHash, payload.data ?? null);
    if (shared.history.size > RESUMABLE_RESULTS) shared.history.delete(shared.history.keys().next().value!);
    let patch: Operation[] | null = null;
    for (const viewer of [...shared.viewers]) {
      if (viewer.patches && viewer.revision > 0 && previous && !patch) {
        const made = generateJSONPatch(previous.data ?? {}, payload.data ?? {});
        // Only the errors or extensions changed: the patch is empty, the revision still moves on.
        patch = made === noDiffSymbol ? [] : made;
      }
      this.#send(viewer, shared, patch);
    }
    return true;
  }

  /** Sends the shared query's last result to one viewer: whole, or as `patch` from the previous one. */
  #send(viewer: Viewer, shared: Shared, patch: Operation[] | null): void {
    const payload = shared.last!;
    let sent: LivePayload;
    const base = viewer.base && shared.history.get(viewer.base.hash);
    if (viewer.base && base !== undefined) {
      // A reconnect from a result this replica still has: patched from it, its revision moving on.
      const made = generateJSONPatch(base ?? {}, payload.data ?? {});
      patch = made === noDiffSymbol ? [] : made;
      viewer.revision = viewer.base.revision;
    }
    viewer.base = null;
    if (!viewer.patches) sent = payload;
    else if (viewer.revision === 0 || !patch) {
      viewer.revision = 1;
      sent = { ...payload, revision: 1 };
    } else {
      viewer.revision += 1;
      sent = { patch, revision: viewer.revision };
      if (payload.errors) sent.errors = payload.errors;
      if (payload.extensions) sent.extensions = payload.extensions;
    }
    if (viewer.resume) sent = { ...sent, extensions: { ...sent.extensions, liveHash: shared.lastHash } };
    if (this.#listeners.size > 0) {
      const kind = sent.patch ? 'patch' : 'result';
      const bytes = Buffer.byteLength(JSON.stringify(sent));
      this.#notify((l) => l.onSend?.(kind, bytes));
    }
    viewer.channel.push(sent);
  }

  #track(shared: Shared, round: LiveRound): void {
    for (const group of shared.groups) if (!round.groups.has(group)) this.#untrackGroup(shared, group);
    for (const group of round.groups) {
      let set = this.#byGroup.get(group);
      if (!set) this.#byGroup.set(group, (set = new Set()));
      set.add(shared);
    }
    shared.groups = new Set(round.groups);
  }

  #untrackGroup(shared: Shared, group: string): void {
    const set = this.#byGroup.get(group);
    set?.delete(shared);
    if (set?.size === 0) this.#byGroup.delete(group);
  }

  /**
   * Watches the result's orders up to the cap, releases those it no longer holds; returns how many go unwatched,
   * and how many of those because this replica's pollers are all taken.
   */
  #watch(shared: Shared, orders: ReadonlySet<string>): { unwatchedOrders: number; overPollerCap: number } {
    const kept = [...orders].slice(0, this.options.maxWatchedOrders);
    const keep = new Set(kept);
    for (const [uuid, release] of shared.watches) {
      if (keep.has(uuid)) continue;
      release();
      shared.watches.delete(uuid);
    }
    for (const uuid of kept) {
      // A refused order is asked again at each resolution (a poller may have been freed), counted as refused
      // until a poller takes it.
      if (shared.watches.has(uuid)) continue;
      const release = this.options.watchOrder(
        uuid,
        () => {
          shared.refused.delete(uuid);
          void this.#round(shared, 'watched');
        },
        () => {
          if (shared.watches.get(uuid) !== release) return;
          shared.watches.delete(uuid);
          if (shared.refused.has(uuid)) return;
          shared.refused.add(uuid);
          // So that the result says so, and is refreshed by time.
          void this.#round(shared, 'refresh');
        },
      );
      shared.watches.set(uuid, release);
    }
    const overPollerCap = kept.filter((uuid) => shared.refused.has(uuid)).length;
    return { unwatchedOrders: orders.size - kept.length + overPollerCap, overPollerCap };
  }

  /** Reads the result again every `everyMs` (null: never), keeping the timer running when that is unchanged. */
  #scheduleRefresh(shared: Shared, everyMs: number | null): void {
    if (shared.refresh && shared.refreshEveryMs === everyMs) return;
    if (shared.refresh) clearInterval(shared.refresh);
    shared.refresh = null;
    shared.refreshEveryMs = everyMs;
    if (everyMs === null) return;
    shared.refresh = setInterval(() => void this.#round(shared, 'refresh'), everyMs);
    shared.refresh.unref();
  }

  #leave(shared: Shared, viewer: Viewer): void {
    shared.viewers.delete(viewer);
    if (shared.viewers.size > 0 || this.#shared.get(shared.key) !== shared) return;
    shared.closed = true;
    this.#shared.delete(shared.key);
    for (const group of shared.groups) this.#untrackGroup(shared, group);
    for (const release of shared.watches.values()) release();
    shared.watches.clear();
    if (shared.refresh) clearInterval(shared.refresh);
  }
}
