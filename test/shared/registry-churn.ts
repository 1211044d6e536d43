import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createDrain } from '../../src/ops/drain.js';
import { watch, type Stops, type Watching } from '../../src/upstream/stops.js';

// Run by registry-retention.test.ts in a process of its own, under --expose-gc and --trace-gc-nvp: what V8's
// collector keeps of things that registered with a registry living as long as the process and then left. Ten are
// in flight at a time, each holding a reward page's worth of objects, as an upstream attempt holds its answer and
// a response its read; one full collection first, as V8 makes under load. The first argument names the registry:
// `stops` (the gateway's stop signal, which every upstream wait watches) or `drain` (every HTTP response).
const [registry = 'stops', count = '10000'] = process.argv.slice(2);
const page = () => Array.from({ length: 200 }, (_, i) => ({ uuid: `reward-${i}`, priceInCents: i }));

const stops: Stops = { scope: new AbortController().signal };
const drain = createDrain();
type Leave = () => void;
const inFlight: Leave[] = [];

function arrive(): Leave {
  if (registry === 'stops') {
    const watching: Watching = watch(stops, { stop() {}, ...{ page: page() } });
    return () => watching.end();
  }
  // What the drain uses of a response: its 'close' event, and its headers once draining.
  const res = Object.assign(new EventEmitter(), { page: page(), headersSent: false, setHeader() {} });
  drain.track(res as unknown as ServerResponse);
  return () => res.emit('close');
}

function step(): void {
  inFlight.push(arrive());
  if (inFlight.length > 10) inFlight.shift()!();
}

for (let i = 0; i < 1_000; i++) step();
(globalThis as { gc?: () => void }).gc!();
process.stdout.write('CHURN-START\n');
for (let i = 0; i < Number(count); i++) step();
process.stdout.write('CHURN-END\n');
