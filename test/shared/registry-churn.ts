import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { ReadCache } from '../../src/cache/read-cache.js';
import { createDrain } from '../../src/ops/drain.js';
import { watch, type Stops, type Watching } from '../../src/upstream/stops.js';

// Run by registry-retention.test.ts in a process of its own, under --expose-gc and --trace-gc-nvp: what V8's
// collector keeps of things that registered with a registry living as long as the process and then left. Ten are
// in flight at a time, each holding a reward page's worth of objects, as an upstream attempt holds its answer and
// a response its read; one full collection first, as V8 makes under load. The first argument names the registry:
// `stops` (the gateway's stop signal, which every upstream wait watches), `drain` (every HTTP response) or
// `loads` (the read cache's loads under way; answers not stored, so that only the registry could keep them).
const [registry = 'stops', count = '10000'] = process.argv.slice(2);
const page = () => Array.from({ length: 200 }, (_, i) => ({ uuid: `reward-${i}`, priceInCents: i }));

const stops: Stops = { scope: new AbortController().signal };
const drain = createDrain();
const cache = new ReadCache({ ttlMs: 5_000, staleIfErrorMs: 0, maxBytes: 1_000_000 });
let reads = 0;
type Leave = () => void | Promise<unknown>;
const inFlight: Leave[] = [];

function arrive(): Leave {
  if (registry === 'stops') {
    const wait = { page: page(), stop() {} };
    const watching: Watching = watch(stops, wait);
    return () => watching.end();
  }
  if (registry === 'loads') {
    let answer!: (page: unknown) => void;
    const fetched = new Promise((resolve) => (answer = resolve));
    const load = cache.read({ group: `order-${reads++}`, field: 'v', fresh: false, fetch: () => fetched, cacheable: () => false });
    return () => {
      answer({ page: page() });
      return load;
    };
  }
  // What the drain uses of a response: its 'close' event, and its headers once draining.
  const res = Object.assign(new EventEmitter(), { page: page(), headersSent: false, setHeader() {} });
  drain.track(res as unknown as ServerResponse);
  return () => void res.emit('close');
}

async function step(): Promise<void> {
  inFlight.push(arrive());
  if (inFlight.length > 10) await inFlight.shift()!();
}

for (let i = 0; i < 1_000; i++) await step();
(globalThis as { gc?: () => void }).gc!();
process.stdout.write('CHURN-START\n');
for (let i = 0; i < Number(count); i++) await step();
process.stdout.write('CHURN-END\n');
