import { getHeapSpaceStatistics } from 'node:v8';
import { startHeapTrim } from '../../src/ops/heap-trim.js';

// Run by heap-trim-v8.test.ts in a process of its own, under start:prod's --max-semi-space-size=64 and
// --expose-gc: a load that grows V8's young generation, then quiet, with the heap trim after AFTER_MS of quiet (0: off).
// Prints every 100 ms, one JSON line each, until killed: the young generation's committed bytes and the old
// generation's used ones.
const afterMs = Number(process.argv[2]);

const space = (name: string) => getHeapSpaceStatistics().find((s) => s.space_name === name)!;
const report = () => process.stdout.write(`${JSON.stringify({ young: space('new_space').space_size, old: space('old_space').space_used_size })}\n`);

// The load: pages of objects of which the last twenty stay alive, as reads in flight keep their answers. Turns of
// the event loop between them, as a server's requests have.
let inFlight: unknown[] = [];
for (let i = 0; i < 400; i++) {
  inFlight.push(Array.from({ length: 5_000 }, (_, j) => ({ j, uuid: `reward-${i}-${j}` })));
  if (inFlight.length > 20) inFlight.shift();
  await new Promise(setImmediate);
}
inFlight = [];
const trim = startHeapTrim({ afterMs, collect: (globalThis as { gc?: () => void }).gc });
if (afterMs > 0 && !trim.running) throw new Error(`the trim did not start: ${trim.reason}`);
report();
setInterval(report, 100);
