import { performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

// After a burst of work V8 keeps the heap the burst grew: the young generation at its largest (start:prod lets
// each of its two halves reach 64 MB) and the old generation's garbage. Only a garbage collection gives either
// back, and an idle process makes none; V8's memory reducer, which would, waits for a quiet it judges by itself:
// a gateway that served a spike held ~260 MB of RSS, where it needs ~100, for one to several minutes.
//
// Here, once the heap has grown by GROWTH_BYTES since the last return, the event loop's utilisation is read
// over windows of `quietMs`; the first window under QUIET_UTILIZATION gets a full collection, which frees the
// old generation's garbage. V8 shrinks the young generation only at a collection that follows the one before by
// 5 s or more of hardly any allocation, so a second one follows a quiet window of YOUNG_MS after it; a busy
// window starts its wait again. Giving the young generation back has a price, paid by the next burst while it
// grows again (a quarter more CPU for a hundred reads one at a time, bench/RESULTS.md 0o), hence a default quiet
// of a minute: bursts that come more often never pay it. One timer a window is all it costs while the heap is
// grown, and nothing at all otherwise: a process at rest wakes for none of this, and probes or a trickle of
// requests never cause a collection.

/** Below this share of a window spent running callbacks, the window counts as quiet (600 ms of a minute). */
const QUIET_UTILIZATION = 0.01;
/** Growth of the committed heap since the last return that makes another worth its two collections. */
const GROWTH_BYTES = 16 * 1024 * 1024;
/** The quiet between the two collections: above V8's 5 s. */
const YOUNG_MS = 6_000;
/** The time V8 takes to release what a collection swept (concurrently), before the heap it keeps is read. */
const SETTLE_MS = 1_000;

type Collect = () => void;

let exposed: Collect | undefined;
/**
 * V8's gc(): the one `node --expose-gc` put on the global, else one from a context made while the flag is on
 * for that moment alone, so that no global `gc` appears for other code (a dependency, a worker) to call.
 */
function collector(): Collect {
  if (exposed) return exposed;
  if (typeof globalThis.gc === 'function') return (exposed = globalThis.gc as Collect);
  let gc: unknown;
  setFlagsFromString('--expose-gc');
  try {
    gc = runInNewContext('gc');
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc() to a new context');
  return (exposed = gc as Collect);
}

export interface MemoryReturnOptions {
  /** MEMORY_RETURN_QUIET_MS: the quiet window before the first collection; 0 turns the return off. */
  quietMs: number;
  registry: Registry;
  logger: Pick<Logger, 'debug' | 'warn'>;
  /** For tests, which grow the heap by less than a spike does and wait less than seconds. */
  growthBytes?: number;
  youngMs?: number;
  settleMs?: number;
}

/** Starts watching; returns what stops it. */
export function returnMemoryWhenQuiet({
  quietMs,
  registry,
  logger,
  growthBytes = GROWTH_BYTES,
  youngMs = YOUNG_MS,
  settleMs = SETTLE_MS,
}: MemoryReturnOptions): () => void {
  if (quietMs === 0) return () => {};
  // Had now rather than at the first spike, so a runtime that refuses it turns the return off at start-up, with
  // a line that says so, instead of failing in a timer mid-traffic.
  let collectGarbage: Collect;
  try {
    collectGarbage = collector();
  } catch (error) {
    logger.warn({ err: error }, 'memory return off: no gc() to call (MEMORY_RETURN_QUIET_MS)');
    return () => {};
  }
  const returns = new Counter({
    name: 'reward_gateway_memory_returns_total',
    help: 'Heap given back after a spike: two full collections once the process had been quiet for MEMORY_RETURN_QUIET_MS',
    registers: [registry],
  });
  const returned = new Counter({
    name: 'reward_gateway_memory_returned_bytes_total',
    help: 'Committed heap given back by those collections (the heap before the first less the heap a second after the second)',
    registers: [registry],
  });
  const committed = () => getHeapStatistics().total_heap_size;
  let baseline = committed();
  /** The one pending step; while it is set, collections are not watched. */
  let timer: NodeJS.Timeout | null = null;

  /** `then` once a window of `ms` passes with the loop quiet; a busy window starts another. */
  const afterQuiet = (ms: number, then: () => void) => {
    const window = performance.eventLoopUtilization();
    // Unref'd: a pending return never keeps a process alive that is otherwise done.
    timer = setTimeout(() => {
      if (performance.eventLoopUtilization(window).utilization >= QUIET_UTILIZATION) afterQuiet(ms, then);
      else then();
    }, ms).unref();
  };
  /** One full collection; its pause in ms. */
  const timed = () => {
    const started = performance.now();
    collectGarbage();
    return performance.now() - started;
  };
  const giveBack = () => {
    const before = committed();
    const first = timed();
    afterQuiet(youngMs, () => {
      const pauseMs = Math.round(first + timed());
      // A spike that starts within the settling counts into the baseline, and is given back once it grows
      // 16 MB beyond it.
      timer = setTimeout(() => {
        timer = null;
        baseline = committed();
        returns.inc();
        returned.inc(Math.max(0, before - baseline));
        logger.debug({ heapBeforeMb: mb(before), heapAfterMb: mb(baseline), pauseMs }, 'memory returned after a spike');
      }, settleMs).unref();
    });
  };
  // A collection is what a growing heap announces itself by; between them there is nothing to look at.
  const observer = new PerformanceObserver(() => {
    if (!timer && committed() >= baseline + growthBytes) afterQuiet(quietMs, giveBack);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
