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
// So while the young generation is above FLOOR_BYTES, every HEAP_TRIM_INTERVAL_MS this asks V8 for a young
// collection (a scavenge: a few milliseconds, what V8 does every few hundred ms under load anyway). V8 itself
// decides whether to shrink: it does in the first one that follows 5 s of low allocation (under 1 KB/ms, about
// one nested read in 1.4 s), so never while traffic flows, and within two intervals of its end (the interval is
// at least 5 s so that the second is that one). Once it has shrunk, by this or by V8's own scavenges, one full
// collection frees what the load promoted and has died since. That one stops the process for 30–60 ms, so it
// waits for a second in which no request and no upstream call starts, and is given up after a minute without
// one. The interval runs only while there is something to give back (busy-interval.ts), started at start-up and
// by the next request or upstream call (activity.ts): an idle gateway with nothing to give back does not wake.
//
// `gc` is V8's, exposed by node's `--expose-gc` (start:prod and the container pass it); without it, or with
// HEAP_TRIM_INTERVAL_MS=0, that memory is given back only when V8 next collects in full.

/** A young generation this size or smaller is left alone: V8 starts it at 1 MB and shrinks it to 1–4 MB. */
export const FLOOR_BYTES = 8 * 1024 * 1024;
/** The full collection waits for this long without activity… */
export const QUIET_MS = 1_000;
/** …and is given up after this many tries (a minute). */
const QUIET_TRIES = 60;

/** V8's collector: a young collection with `{ type: 'minor' }`, a full one without options. */
type Collect = (options?: { type: 'minor' }) => void;

export interface HeapTrimOptions {
  everyMs: number;
  /** V8's collector: `globalThis.gc`, there only under `--expose-gc`. */
  collect: Collect | undefined;
  /** The young generation's committed size; V8's `new_space` unless given (tests). */
  youngGenerationBytes?: () => number;
}

export type HeapTrim = { running: true; stop(): void } | { running: false; reason: string };

function youngGenerationCommitted(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

export function startHeapTrim({ everyMs, collect, youngGenerationBytes = youngGenerationCommitted }: HeapTrimOptions): HeapTrim {
  if (everyMs === 0) return { running: false, reason: 'HEAP_TRIM_INTERVAL_MS=0' };
  if (!collect) return { running: false, reason: 'node was started without --expose-gc (npm run start:prod passes it)' };
  // Whether the last tick left the young generation above the floor: the next tick is then owed even if V8
  // shrinks it by itself in between, so that the full collection follows.
  let aboveAtLastTick = false;
  // Whether a request or an upstream call started during the current second of the quiet wait.
  let active = false;
  let quietWait: NodeJS.Timeout | null = null;
  const cancelQuietWait = () => {
    if (quietWait) clearTimeout(quietWait);
    quietWait = null;
  };
  // The full collection, made in the first second that no request or upstream call starts in, and given up after
  // QUIET_TRIES of them: under steady light traffic it would land on a request sooner or later, and V8 then
  // collects in full by itself as the old generation grows. Unref'd: it never keeps a process alive that is done.
  const collectWhenQuiet = (tries: number) => {
    active = false;
    quietWait = setTimeout(() => {
      quietWait = null;
      if (!active) collect();
      else if (tries > 1) collectWhenQuiet(tries - 1);
    }, QUIET_MS).unref();
  };
  const trim = busyInterval(
    () => aboveAtLastTick || youngGenerationBytes() > FLOOR_BYTES,
    () => {
      if (youngGenerationBytes() > FLOOR_BYTES) collect({ type: 'minor' });
      aboveAtLastTick = youngGenerationBytes() > FLOOR_BYTES;
      // A load under way again: its own quiet comes later, and the full collection with it.
      if (aboveAtLastTick) cancelQuietWait();
      else if (quietWait === null) collectWhenQuiet(QUIET_TRIES);
    },
    everyMs,
  );
  const stopListening = onActivity(() => {
    active = true;
    trim.poke();
  });
  // Start-up leaves a young generation of about 32 MB (loading the modules, building the schema): given back
  // without waiting for the first request.
  trim.poke();
  return {
    running: true,
    stop() {
      stopListening();
      trim.close();
      cancelQuietWait();
    },
  };
}
