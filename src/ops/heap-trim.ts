import { performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { busyInterval } from '../shared/busy-interval.js';
import { onActivity } from './activity.js';

// Gives back the memory a load left behind, once the load is over: the young generation it made V8 grow, and
// what it promoted to the old generation and nothing collected since.
//
// start:prod lets the young generation grow to 128 MB (`--max-semi-space-size=64`: a nested read costs a fifth
// less CPU, docs/operations.md). V8 shrinks it again only in a collection that finds the allocation rate of the
// last 5 s low, and after a load no collection comes: nothing allocates. V8's memory reducer would make one, but
// only a full (mark-compact) collection during the load arms it, and the gateway's reads leave so little behind
// that a load makes none: the young generation stayed at 128 MB for as long as it was watched (100 s), and the
// old generation held what 50 connections had promoted (bench/RESULTS.md 0q), where a peer that collected in
// full gave its memory back after about 40 s.
//
// So once the gateway has allocated next to nothing for HEAP_TRIM_AFTER_MS (a minute), this asks V8 for a young
// collection, in which V8 shrinks the young generation, having seen 5 s of low allocation (the setting is at least
// 5 s). "Next to nothing" is read every CHECK_EVERY_MS: a look after which V8 made a collection of its own, or
// that finds the young generation's used bytes (large objects included) grown by 5 MB or more (1 MB a second,
// V8's threshold for low allocation), starts the minute again. Requests are not counted: probes, metrics
// scrapes, the readiness ping and polls that find nothing come every few seconds and allocate little, and would
// hold the memory back for good. Once the young generation has shrunk, one full collection frees what the load
// promoted and has died since; that one stops the process for 30–60 ms, so it waits for a second in which no
// request and no upstream call starts (and the young generation has not grown again), and is given up after a
// minute without one.
//
// Not sooner than a quiet minute, and never while traffic flows: a load that finds the young generation shrunk
// grows it again, and until it has, it scavenges every megabyte and promotes what is in flight. Given back after
// every 6 s lull, a burst cost 20–90 % more CPU a query in the comparison's rounds than on a grown young
// generation, and two full collections more (bench/RESULTS.md, 0r). V8's own memory reducer gives a process's
// memory back 40–70 s after its last full collection: a minute is as long. The looks run only while there is
// something to give back (busy-interval.ts), started at start-up and by the next request or upstream call
// (activity.ts): an idle gateway with nothing to give back does not wake.
//
// `gc` is V8's, exposed by node's `--expose-gc` (start:prod and the container pass it); without it, or with
// HEAP_TRIM_AFTER_MS=0, that memory is given back only when V8 next collects in full.

/** A young generation this size or smaller is left alone: V8 starts it at 1 MB and shrinks it to 1–4 MB. */
export const FLOOR_BYTES = 8 * 1024 * 1024;
/** How often the trim looks, while it has something to give back: V8's window of allocation is 5 s. */
export const CHECK_EVERY_MS = 5_000;
/** Allocated between two looks, this much or more is a load: V8 calls under 1 KB/ms low. */
export const BUSY_BYTES = 5 * 1024 * 1024;
/** The full collection waits for this long without activity… */
export const QUIET_MS = 1_000;
/** …and is given up after this many tries (a minute). */
const QUIET_TRIES = 60;

/** V8's collector: a young collection with `{ type: 'minor' }`, a full one without options. */
type Collect = (options?: { type: 'minor' }) => void;

export interface HeapTrimOptions {
  /** How long the gateway must allocate next to nothing before the memory is given back (HEAP_TRIM_AFTER_MS); 0: never. */
  afterMs: number;
  /** V8's collector: `globalThis.gc`, there only under `--expose-gc`. */
  collect: Collect | undefined;
  /** The young generation's committed and used bytes; V8's `new_space` (and large objects) unless given (tests). */
  youngGeneration?: () => YoungGeneration;
  /** Calls `listener` on each collection V8 makes of its own; returns what stops it. V8's `gc` entries unless given (tests). */
  onCollection?: (listener: () => void) => () => void;
  /** How often it looks; CHECK_EVERY_MS unless given (tests). */
  checkEveryMs?: number;
}

export interface YoungGeneration {
  committed: number;
  used: number;
}

export type HeapTrim = { running: true; stop(): void } | { running: false; reason: string };

function newSpace(): YoungGeneration {
  const young = { committed: 0, used: 0 };
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space') [young.committed, young.used] = [space.space_size, space.space_used_size];
    // Objects over about 128 KB are allocated here, outside the semi-spaces, and count as allocation too.
    if (space.space_name === 'new_large_object_space') young.used += space.space_used_size;
  }
  return young;
}

/** V8's collections, from node's `gc` performance entries; those that start within one of `own` are the trim's. */
function v8Collections(own: { from: number; to: number }): (listener: () => void) => () => void {
  return (listener) => {
    const observer = new PerformanceObserver((list) => {
      if (list.getEntries().some((entry) => entry.startTime < own.from || entry.startTime > own.to)) listener();
    });
    observer.observe({ entryTypes: ['gc'] });
    return () => observer.disconnect();
  };
}

export function startHeapTrim(options: HeapTrimOptions): HeapTrim {
  const { afterMs, collect, youngGeneration = newSpace, checkEveryMs = CHECK_EVERY_MS } = options;
  if (afterMs === 0) return { running: false, reason: 'HEAP_TRIM_AFTER_MS=0' };
  if (!collect) return { running: false, reason: 'node was started without --expose-gc (npm run start:prod passes it)' };
  // When the trim's own collections ran, so that V8's entries for them are not read as V8's own.
  const own = { from: 0, to: -1 };
  const collectOwn: Collect = (collectOptions) => {
    own.from = performance.now();
    if (collectOptions) collect(collectOptions);
    else collect();
    own.to = performance.now();
  };
  // Whether a load has grown the young generation since the last full collection: owed until it is given back,
  // even if V8 shrinks the young generation by itself in the meantime, so that the full collection follows.
  let owed = false;
  // How long the gateway has allocated next to nothing, counted in looks; what the last look saw, and when.
  let quietMs = 0;
  let usedAtLastLook = youngGeneration().used;
  let lastLookAt = Date.now();
  let collectedSinceLook = false;
  // Whether a request or an upstream call started during the current second of the quiet wait.
  let active = false;
  let quietWait: NodeJS.Timeout | null = null;
  const cancelQuietWait = () => {
    if (quietWait) clearTimeout(quietWait);
    quietWait = null;
  };
  const above = () => youngGeneration().committed > FLOOR_BYTES;
  // The full collection, made in the first second that no request or upstream call starts in, and given up after
  // QUIET_TRIES of them: under steady light traffic it would land on a request sooner or later, and V8 then
  // collects in full by itself as the old generation grows. Not on a young generation grown again by a load that
  // came meanwhile: that one is owed its own quiet minute. Unref'd: it never keeps a process alive that is done.
  const collectWhenQuiet = (tries: number) => {
    active = false;
    quietWait = setTimeout(() => {
      quietWait = null;
      if (above()) {
        owed = true;
        trim.poke();
      } else if (!active) collectOwn();
      else if (tries > 1) collectWhenQuiet(tries - 1);
    }, QUIET_MS).unref();
  };
  const trim = busyInterval(
    () => owed || above(),
    () => {
      const { committed, used } = youngGeneration();
      if (committed > FLOOR_BYTES) {
        owed = true;
        // A load under way again: its own quiet comes later, and the full collection with it.
        cancelQuietWait();
      }
      // The looks paused (nothing was owed) and start again: this one sets the baseline and counts nothing.
      const resumed = Date.now() - lastLookAt > 1.5 * checkEveryMs;
      const busy = resumed || collectedSinceLook || used - usedAtLastLook >= BUSY_BYTES;
      [usedAtLastLook, lastLookAt, collectedSinceLook] = [used, Date.now(), false];
      quietMs = busy ? 0 : quietMs + checkEveryMs;
      if (quietMs < afterMs) return;
      if (above()) collectOwn({ type: 'minor' });
      usedAtLastLook = youngGeneration().used;
      quietMs = 0;
      // V8 kept it (it still sees allocation this does not count): tried again after another quiet minute.
      if (above()) return;
      owed = false;
      if (quietWait === null) collectWhenQuiet(QUIET_TRIES);
    },
    checkEveryMs,
  );
  const stopCollections = (options.onCollection ?? v8Collections(own))(() => {
    collectedSinceLook = true;
  });
  const stopListening = onActivity(() => {
    active = true;
    trim.poke();
  });
  // Start-up leaves a young generation of about 32 MB (loading the modules, building the schema): given back
  // after the same quiet, without waiting for a first request.
  trim.poke();
  return {
    running: true,
    stop() {
      stopListening();
      stopCollections();
      trim.close();
      cancelQuietWait();
    },
  };
}
