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
// 5 s). "Next to nothing" is V8's own measure of low allocation, under 1 MB a second, read from the young
// generation every CHECK_EVERY_MS: a look that finds it grown by 5 MB or more, or emptied by a collection of V8's
// own, starts the minute again. Requests are not counted: probes, metrics scrapes, the readiness ping and polls
// that find nothing come every few seconds and allocate little, and would hold the memory back for good. Once the
// young generation has shrunk, one full collection frees what the load promoted and has died since; that one
// stops the process for 30–60 ms, so it waits for a second in which no request and no upstream call starts, and
// is given up after a minute without one.
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
  /** The young generation's committed and used bytes; V8's `new_space` unless given (tests). */
  youngGeneration?: () => YoungGeneration;
  /** How often it looks; CHECK_EVERY_MS unless given (tests). */
  checkEveryMs?: number;
}

export interface YoungGeneration {
  committed: number;
  used: number;
}

export type HeapTrim = { running: true; stop(): void } | { running: false; reason: string };

function newSpace(): YoungGeneration {
  for (const space of getHeapSpaceStatistics())
    if (space.space_name === 'new_space') return { committed: space.space_size, used: space.space_used_size };
  return { committed: 0, used: 0 };
}

export function startHeapTrim({ afterMs, collect, youngGeneration = newSpace, checkEveryMs = CHECK_EVERY_MS }: HeapTrimOptions): HeapTrim {
  if (afterMs === 0) return { running: false, reason: 'HEAP_TRIM_AFTER_MS=0' };
  if (!collect) return { running: false, reason: 'node was started without --expose-gc (npm run start:prod passes it)' };
  // Whether a load has grown the young generation since the last full collection: owed until it is given back,
  // even if V8 shrinks the young generation by itself in the meantime, so that the full collection follows.
  let owed = false;
  // How long the gateway has allocated next to nothing, counted in looks, and the young generation's use at the last.
  let quietMs = 0;
  let usedAtLastLook = youngGeneration().used;
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
  const above = () => youngGeneration().committed > FLOOR_BYTES;
  const trim = busyInterval(
    () => owed || above(),
    () => {
      const { committed, used } = youngGeneration();
      if (committed > FLOOR_BYTES) {
        owed = true;
        // A load under way again: its own quiet comes later, and the full collection with it.
        cancelQuietWait();
      }
      // Fallen: V8 collected, so it filled a semi-space since the last look.
      const busy = used < usedAtLastLook || used - usedAtLastLook >= BUSY_BYTES;
      usedAtLastLook = used;
      quietMs = busy ? 0 : quietMs + checkEveryMs;
      if (quietMs < afterMs || !owed) return;
      if (above()) collect({ type: 'minor' });
      usedAtLastLook = youngGeneration().used;
      // V8 kept it (it saw more allocation than this counts): looked at again next time.
      if (above()) return;
      owed = false;
      quietMs = 0;
      if (quietWait === null) collectWhenQuiet(QUIET_TRIES);
    },
    checkEveryMs,
  );
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
      trim.close();
      cancelQuietWait();
    },
  };
}
