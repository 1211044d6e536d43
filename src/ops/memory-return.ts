import { performance, PerformanceObserver, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

// After a burst of work V8 keeps the heap the burst grew: the young generation at its largest (start:prod lets
// each of its two halves reach 64 MB) and the old generation's garbage. Only a garbage collection gives either
// back, and an idle process makes none: V8's memory reducer, which would, does not run under Node. So a gateway
// that served a spike kept ~290 MB of RSS for good where it needs ~100 (bench/RESULTS.md, 0o).
//
// Here, once the heap has grown by GROWTH_BYTES since the last return, the event loop's utilisation is watched
// over windows of `quietMs`; the first window under QUIET_UTILIZATION (the spike is over) gets one full
// collection. V8 shrinks the young generation at a collection only when it allocated under 1 KB/ms over its
// last 5 s, hence a default window above 5 s. Nothing is watched while the heap stays within its growth: a
// process at rest wakes for none of this, and probes or a trickle of requests never cause a collection of
// their own.

/** Below this share of a window spent running callbacks, the process counts as quiet (60 ms of a 6 s window). */
const QUIET_UTILIZATION = 0.01;
/** Growth of the committed heap since the last return that makes another worth a full collection. */
const GROWTH_BYTES = 16 * 1024 * 1024;

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
  /** MEMORY_RETURN_QUIET_MS; 0 turns the return off. */
  quietMs: number;
  registry: Registry;
  logger: Pick<Logger, 'debug'>;
  /** For tests, which grow the heap by less than a spike does. */
  growthBytes?: number;
}

/** Starts watching; returns what stops it. */
export function returnMemoryWhenQuiet({ quietMs, registry, logger, growthBytes = GROWTH_BYTES }: MemoryReturnOptions): () => void {
  if (quietMs === 0) return () => {};
  const returns = new Counter({
    name: 'reward_gateway_memory_returns_total',
    help: 'Full garbage collections run after a quiet spell that followed a growth of the heap (MEMORY_RETURN_QUIET_MS)',
    registers: [registry],
  });
  const returned = new Counter({
    name: 'reward_gateway_memory_returned_bytes_total',
    help: 'Committed heap given back by those collections (the heap before less the heap after)',
    registers: [registry],
  });
  const committed = () => getHeapStatistics().total_heap_size;
  let baseline = committed();
  let timer: NodeJS.Timeout | null = null;
  let window: EventLoopUtilization;

  const watch = () => {
    window = performance.eventLoopUtilization();
    // Unref'd: a pending return never keeps a process alive that is otherwise done.
    timer = setTimeout(check, quietMs).unref();
  };
  const check = () => {
    timer = null;
    if (performance.eventLoopUtilization(window).utilization >= QUIET_UTILIZATION) return watch();
    const before = committed();
    const started = performance.now();
    collector()();
    const pauseMs = Math.round(performance.now() - started);
    returns.inc();
    // V8 sweeps and releases the emptied pages after the collection, concurrently: the heap it keeps is read a
    // window later (nothing is watched until then).
    timer = setTimeout(() => {
      timer = null;
      baseline = committed();
      returned.inc(Math.max(0, before - baseline));
      logger.debug({ heapBeforeMb: mb(before), heapAfterMb: mb(baseline), pauseMs }, 'memory returned after a quiet spell');
    }, quietMs).unref();
  };
  // A collection is what a growing heap announces itself by; between them there is nothing to look at.
  const observer = new PerformanceObserver(() => {
    if (!timer && committed() >= baseline + growthBytes) watch();
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
