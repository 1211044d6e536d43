import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
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
// 5 s). "Next to nothing" is V8's own measure: under 1,000 bytes a millisecond (LOAD_BYTES_PER_MS). The young
// generation's used bytes (large objects included) are read when a request or an upstream call starts, at most
// once a second, and when the minute is up; growth at that rate or more since the reading before, or a collection
// V8 made of its own, starts the minute again. Requests themselves are not counted: probes, metrics scrapes, the
// readiness ping and polls that find nothing come every few seconds and allocate a few kilobytes, and would hold
// the memory back for good. Once the young generation has shrunk, one full collection frees what the load
// promoted and has died since; that one stops the process for 30–60 ms, so it waits for a second in which no
// request and no upstream call starts (and the young generation has not grown again), and is given up after a
// minute without one.
//
// Not sooner than a quiet minute, and never while traffic flows: a load that finds the young generation shrunk
// grows it again, and until it has, it scavenges every megabyte and promotes what is in flight. Given back after
// every 6 s lull, a burst cost 20–90 % more CPU a query in the comparison's rounds than on a grown young
// generation, and two full collections more (bench/RESULTS.md, 0r). V8's own memory reducer gives a process's
// memory back 40–70 s after its last full collection: a minute is as long. One timer, set for the minute's end
// and only while there is something to give back, is all that wakes the process, with the quiet second's after
// it: the readings ride on the requests and calls that wake it anyway (a reading every 5 s of its own was the
// whole of an idle replica's CPU, bench/RESULTS.md 0s). It is set at start-up, and by the next request, upstream
// call (activity.ts) or collection of V8's that finds the young generation grown, or by the quiet second of the
// full collection finding it grown again.
//
// `gc` is V8's, exposed by node's `--expose-gc` (start:prod and the container pass it); without it, or with
// HEAP_TRIM_AFTER_MS=0, that memory is given back only when V8 next collects in full.

/** A young generation this size or smaller is left alone: V8 starts it at 1 MB and shrinks it to 1–4 MB. */
export const FLOOR_BYTES = 8 * 1024 * 1024;
/** Allocation at this rate or more, in bytes a millisecond, is a load: V8's own threshold of low allocation. */
export const LOAD_BYTES_PER_MS = 1000;
/** The allocation is read at most this often when requests and calls start (a reading costs about 1 µs), and a
 * rate is never taken over less. */
export const READ_EVERY_MS = 1_000;
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
  const { afterMs, collect, youngGeneration = newSpace } = options;
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
  const above = () => youngGeneration().committed > FLOOR_BYTES;
  // Whether a request or an upstream call started during the current second of the quiet wait.
  let active = false;
  let quietWait: NodeJS.Timeout | null = null;
  const cancelQuietWait = () => {
    if (quietWait) clearTimeout(quietWait);
    quietWait = null;
  };
  // The one timer: set for the end of the quiet minute once a load has grown the young generation, and set again
  // from now (refresh(): the same timer) whenever the quiet starts again. It stays set until the minute is up with
  // the young generation found shrunk (by the trim or, meanwhile, by V8 itself), so that the full collection follows.
  let wait: NodeJS.Timeout | null = null;
  // The last reading of the young generation's used bytes, on the monotonic clock (a wall clock set back would
  // stop the readings for as long).
  let reading = { at: performance.now(), used: youngGeneration().used };
  const freshReading = () => {
    reading = { at: performance.now(), used: youngGeneration().used };
  };
  // Reads the young generation: whether it grew at a load's rate since the reading before, over a second at least:
  // a reading moments after another (a probe's, then the minute's end) would take the probe's few kilobytes for one.
  const grewLikeALoad = (): boolean => {
    const [at, { used }] = [performance.now(), youngGeneration()];
    const grew = used - reading.used >= LOAD_BYTES_PER_MS * Math.max(at - reading.at, READ_EVERY_MS);
    reading = { at, used };
    return grew;
  };
  const watch = () => {
    if (wait || !above()) return;
    // A load has grown it: the reading before it (the last trim's, maybe hours old) would hide its first second.
    freshReading();
    // A full collection still waiting for a quiet second is that load's to make now, after its own quiet minute.
    cancelQuietWait();
    wait = setTimeout(minuteUp, afterMs).unref();
  };
  // The full collection, made in the first second that no request or upstream call starts in, and given up after
  // QUIET_TRIES of them: under steady light traffic it would land on a request sooner or later, and V8 then
  // collects in full by itself as the old generation grows. Not on a young generation grown again by a load that
  // came meanwhile: that one is owed its own quiet minute. Unref'd: it never keeps a process alive that is done.
  const collectWhenQuiet = (tries: number) => {
    active = false;
    quietWait = setTimeout(() => {
      quietWait = null;
      if (above()) watch();
      else if (!active) collectOwn();
      else if (tries > 1) collectWhenQuiet(tries - 1);
    }, QUIET_MS).unref();
  };
  function minuteUp() {
    const waiting = wait!;
    // Allocation no request or call came to read (messages to subscribers, say): the quiet starts now.
    if (grewLikeALoad()) return void waiting.refresh();
    if (above()) collectOwn({ type: 'minor' });
    freshReading();
    // V8 kept it (it still sees allocation this does not count): tried again after another quiet minute.
    if (above()) return void waiting.refresh();
    wait = null;
    collectWhenQuiet(QUIET_TRIES);
  }
  // A collection of V8's own: the quiet starts again, from what it left (a timer set later reads afresh anyway).
  const stopCollections = (options.onCollection ?? v8Collections(own))(() => {
    if (!wait) return watch();
    freshReading();
    wait.refresh();
  });
  // At most once a second, however many requests and calls start: a reading while the timer is set, otherwise
  // whether there is something to give back.
  let checkedAt = -Infinity;
  const stopListening = onActivity(() => {
    active = true;
    const now = performance.now();
    if (now - checkedAt < READ_EVERY_MS) return;
    checkedAt = now;
    if (!wait) watch();
    else if (grewLikeALoad()) wait.refresh();
  });
  // Start-up leaves a young generation of about 32 MB (loading the modules, building the schema): given back
  // after the same quiet, without waiting for a first request.
  watch();
  return {
    running: true,
    stop() {
      stopListening();
      stopCollections();
      if (wait) clearTimeout(wait);
      wait = null;
      cancelQuietWait();
    },
  };
}
