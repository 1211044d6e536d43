import { performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

// After a burst of work V8 keeps the heap the burst grew: the young generation at its largest (start:prod lets
// each of its two halves reach 64 MB) and the old generation's garbage. Only a garbage collection gives either
// back, and an idle process makes none; V8's memory reducer, which would, waits for a long enough quiet that
// an idle gateway met it only after a minute or more, where the peers of the benchmark met it within 15 s. So a
// gateway that served a spike held ~260 MB of RSS for minutes where it needs ~100 (bench/RESULTS.md, 0o).
//
// Here, once the heap has grown by GROWTH_BYTES since the last return, the event loop's utilisation is watched.
// A second under QUIET_UTILIZATION ends the spike: a first full collection frees the old generation's garbage.
// V8 shrinks the young generation only at a collection that follows the one before by 5 s or more of hardly
// any allocation, so a second collection follows a window of `quietMs` (above 5 s) that was quiet too; busy
// windows postpone it. Nothing is watched while the heap stays within its growth: a process at rest wakes for
// none of this, and probes or a trickle of requests never cause a collection of their own.

/** Below this share of a window spent running callbacks, the process counts as quiet (60 ms of a 6 s window). */
const QUIET_UTILIZATION = 0.01;
/** Growth of the committed heap since the last return that makes another worth its two collections. */
const GROWTH_BYTES = 16 * 1024 * 1024;
/** The quiet that marks the end of a spike, and the time V8 takes to release what a collection swept. */
const SHORT_MS = 1_000;

type Collect = () => void;

let exposed: Collect | undefined;
/**
 * V8's gc(): the one `node --expose-gc` put on the global, else one from a context made while the flag is on
 * for that moment alone, so that no global `gc` appears for other code (a dependency, a worker) to call.
 */
function collector(): Collect {
  if (exposed) return exposed;
  if (typeof globalThis.gc === 'function') return (exposed = globalThis.gc as Collect);
  setFlagsFromString('--expose-gc');
  try {
    exposed = runInNewContext('gc') as Collect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return exposed;
}

export interface MemoryReturnOptions {
  /** MEMORY_RETURN_QUIET_MS: the quiet between the two collections; 0 turns the return off. */
  quietMs: number;
  registry: Registry;
  logger: Pick<Logger, 'debug'>;
  /** For tests, which grow the heap by less than a spike does and wait less than a second. */
  growthBytes?: number;
  shortMs?: number;
}

/** Starts watching; returns what stops it. */
export function returnMemoryWhenQuiet({
  quietMs,
  registry,
  logger,
  growthBytes = GROWTH_BYTES,
  shortMs = SHORT_MS,
}: MemoryReturnOptions): () => void {
  if (quietMs === 0) return () => {};
  const returns = new Counter({
    name: 'reward_gateway_memory_returns_total',
    help: 'Heap given back after a spike: two full collections in quiet spells after the heap grew (MEMORY_RETURN_QUIET_MS)',
    registers: [registry],
  });
  const returned = new Counter({
    name: 'reward_gateway_memory_returned_bytes_total',
    help: 'Committed heap given back by those collections (the heap before the first less the heap after the second)',
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
  const collect = () => {
    const started = performance.now();
    collector()();
    return performance.now() - started;
  };
  const giveBack = () => {
    const before = committed();
    const first = collect();
    afterQuiet(quietMs, () => {
      const pauseMs = Math.round(first + collect());
      timer = setTimeout(() => {
        timer = null;
        baseline = committed();
        returns.inc();
        returned.inc(Math.max(0, before - baseline));
        logger.debug({ heapBeforeMb: mb(before), heapAfterMb: mb(baseline), pauseMs }, 'memory returned after a spike');
      }, shortMs).unref();
    });
  };
  // A collection is what a growing heap announces itself by; between them there is nothing to look at.
  const observer = new PerformanceObserver(() => {
    if (!timer && committed() >= baseline + growthBytes) afterQuiet(shortMs, giveBack);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
