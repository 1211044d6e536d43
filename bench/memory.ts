import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import WebSocket from 'ws';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { ROOT, startGatewayProcess, startSandboxProcess, type GatewayProcess } from './processes.js';
import { closeSubscribers, GIFT_CHANGES, openSubscribers, waitForGauges } from './subscribers.js';
import { compiledEntry, productionNodeFlags, startGatewayTarget } from './targets.js';
import { median } from './stats.js';

// The gateway's memory, each figure on its own and repeatable, without the rest of `npm run bench`:
//   idle         the idle resident set of the compiled production start as the comparison measures it (start:prod's
//                node flags, 3 s after it first answered, before any load), then with plain `node`, over RUNS
//                starts: each, and the median.
//   subscribers  heap per idle giftStatusChanged subscriber as the fan-out scenario measures it (heap used after
//                forced GCs, COUNT more subscribers against one per order), PER_SOCKET to a WebSocket. The
//                gateway runs through tsx as in the fan-out scenario, or compiled with MEMORY_TARGET=compiled
//                (tsx's keepNames output gives every closure of src/ a dictionary of properties: ~3 KB more per
//                subscriber). MEMORY_SNAPSHOTS=1 also writes heap snapshots before and after to
//                bench/results/profiles/, for bench/heap-diff.ts.
//   graphiql     what opening GraphiQL once adds to the resident set: the gateway (tsx, GRAPHIQL=true; compiled with
//                MEMORY_TARGET=compiled) is read after forced GCs 3 s after start, then fetches what a browser's
//                first visit fetches (the page, compressed as Chromium accepts it, then the schema's introspection
//                query GraphiQL sends), and is read again after forced GCs; over RUNS starts, each and the median.
// Usage: node --import tsx bench/memory.ts idle [RUNS=5]
//        node --import tsx bench/memory.ts subscribers [COUNT=2000] [PER_SOCKET=1]
//        node --import tsx bench/memory.ts graphiql [RUNS=3]
// BENCH_COMPILED_ENTRY picks the compiled entry, as for `npm run bench` (default: `npm run build` first).

const log = (m: string) => process.stderr.write(`[memory] ${m}\n`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const signedMb = (bytes: number) => `${bytes < 0 ? '−' : '+'}${mb(Math.abs(bytes))}`;
const ORDERS = 20;

async function idle(runs: number): Promise<void> {
  const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
  if (!entry) throw new Error('no compiled entry');
  // The comparison starts the compiled gateway with start:prod's node flags; plain node shows what they cost.
  const prodFlags = productionNodeFlags();
  const sandbox = await startSandboxProcess({ latencyMs: 0, token: `memory-${randomBytes(8).toString('hex')}`, balanceCents: 1_000_000 });
  try {
    for (const flags of prodFlags.length ? [prodFlags, []] : [[]]) {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const gateway = await startGatewayTarget('gateway-compiled', entry, sandbox, flags);
        await gateway.stop();
        samples.push(gateway.idleRssBytes);
        log(`node ${[...flags, entry].join(' ')}, start ${i + 1}/${runs}: idle RSS ${mb(gateway.idleRssBytes)}`);
      }
      console.log(
        `idle RSS of node ${[...flags, entry].join(' ')} (NODE_ENV=production): median ${mb(median(samples))}, ` +
          `min ${mb(Math.min(...samples))}, max ${mb(Math.max(...samples))} over ${runs} starts`,
      );
    }
  } finally {
    await sandbox.stop();
  }
}

/** A heap snapshot through the gateway's inspector, streamed to `file` (it collects garbage first). */
function snapshot(gateway: GatewayProcess, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file);
    const socket = new WebSocket(gateway.inspectorUrl, { maxPayload: 1024 * 1024 * 1024 });
    socket.once('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.takeHeapSnapshot', params: { reportProgress: false } })));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: { chunk: string } };
      if (message.method === 'HeapProfiler.addHeapSnapshotChunk') out.write(message.params!.chunk);
      if (message.id === 1) {
        socket.close();
        out.end(() => resolve());
      }
    });
    socket.once('error', reject);
  });
}

async function heapAfterGc(gateway: GatewayProcess): Promise<{ heap: number; rss: number }> {
  await gateway.gc();
  await gateway.gc();
  const { heapUsedBytes, rssBytes } = await gateway.memory();
  return { heap: heapUsedBytes ?? NaN, rss: rssBytes };
}

async function subscribers(count: number, perSocket: number, snapshots: string | null): Promise<void> {
  const entry = process.env.MEMORY_TARGET === 'compiled' ? compiledEntry(process.env.BENCH_COMPILED_ENTRY, log) : null;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  const sandbox = await startSandboxProcess({ latencyMs: 0, token: `memory-${randomBytes(8).toString('hex')}`, balanceCents: 1_000_000 });
  const gateway = await startGatewayProcess({
    upstream: sandbox,
    pollIntervalMs: 1_000,
    cpuProfDir: null,
    ...(entry ? { compiledEntry: entry } : {}),
  });
  try {
    const upstream = sandboxClient(sandbox);
    const orders: { uuid: string }[] = [];
    for (let i = 0; i < ORDERS; i++)
      orders.push(await upstream.createEmailOrder(`memory-${Date.now()}-${i}`, { recipients: 2, brandCode: 'sbxcoffeeus' }));
    const variables = (n: number) => Array.from({ length: n }, (_, i) => ({ campaign: orders[i % ORDERS]!.uuid }));
    // One subscriber per order first, so every poller, feed and lookup exists before the measured ones join.
    const first = await openSubscribers(gateway.url, GIFT_CHANGES, variables(ORDERS), { perSocket: 1 });
    await waitForGauges(gateway, { subscriptions: ORDERS, pollers: ORDERS });
    await sleep(2_000);
    const before = await heapAfterGc(gateway);
    if (snapshots) await snapshot(gateway, join(snapshots, 'before.heapsnapshot'));
    const rest = await openSubscribers(gateway.url, GIFT_CHANGES, variables(count), { perSocket });
    await waitForGauges(gateway, { subscriptions: ORDERS + count, pollers: ORDERS });
    await sleep(2_000);
    const after = await heapAfterGc(gateway);
    if (snapshots) await snapshot(gateway, join(snapshots, 'after.heapsnapshot'));
    await closeSubscribers([...first, ...rest]);
    await waitForGauges(gateway, { subscriptions: 0, pollers: 0 });
    const closed = await heapAfterGc(gateway);
    const per = (bytes: number) => `${(bytes / count / 1024).toFixed(1)} KB`;
    console.log(
      `${count} idle subscribers, ${perSocket} to a WebSocket: heap ${mb(before.heap)} → ${mb(after.heap)} (${per(after.heap - before.heap)} each), ` +
        `RSS ${mb(before.rss)} → ${mb(after.rss)} (${per(after.rss - before.rss)} each); all closed: heap ${mb(closed.heap)}`,
    );
  } finally {
    await gateway.stop();
    await sandbox.stop();
  }
}

/** What a browser's first visit to GraphiQL fetches: the page, and the schema GraphiQL asks for when it loads. */
async function openGraphiql(url: string): Promise<number> {
  const page = await fetch(`${url}/graphql`, {
    headers: { accept: 'text/html,application/xhtml+xml', 'accept-encoding': 'gzip, deflate, br, zstd' },
  });
  if (!page.ok || !page.headers.get('content-type')?.startsWith('text/html')) throw new Error(`GraphiQL page: ${page.status}`);
  const bytes = (await page.arrayBuffer()).byteLength;
  const schema = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  if (!schema.ok) throw new Error(`introspection: ${schema.status}`);
  await schema.arrayBuffer();
  return bytes;
}

async function graphiql(runs: number): Promise<void> {
  const entry = process.env.MEMORY_TARGET === 'compiled' ? compiledEntry(process.env.BENCH_COMPILED_ENTRY, log) : null;
  const sandbox = await startSandboxProcess({ latencyMs: 0, token: `memory-${randomBytes(8).toString('hex')}`, balanceCents: 1_000_000 });
  const added: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const gateway = await startGatewayProcess({
        upstream: sandbox,
        pollIntervalMs: 5_000,
        cpuProfDir: null,
        env: { GRAPHIQL: 'true' },
        ...(entry ? { compiledEntry: entry } : {}),
      });
      try {
        await sleep(3_000);
        const before = await heapAfterGc(gateway);
        const bytes = await openGraphiql(gateway.url);
        await sleep(2_000);
        const after = await heapAfterGc(gateway);
        added.push(after.rss - before.rss);
        log(
          `start ${i + 1}/${runs}: page ${mb(bytes)} (decompressed); RSS ${mb(before.rss)} → ${mb(after.rss)} (${signedMb(after.rss - before.rss)}), ` +
            `heap ${mb(before.heap)} → ${mb(after.heap)}`,
        );
      } finally {
        await gateway.stop();
      }
    }
  } finally {
    await sandbox.stop();
  }
  console.log(
    `GraphiQL's first load (${entry ? `node ${entry}` : 'src/main.ts through tsx'}): RSS ${signedMb(median(added))} median, ` +
      `${signedMb(Math.min(...added))} to ${signedMb(Math.max(...added))} over ${runs} starts (after forced GCs)`,
  );
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'idle') await idle(Number(args[0] ?? 5));
else if (mode === 'graphiql') await graphiql(Number(args[0] ?? 3));
else if (mode === 'subscribers') {
  const snapshots = process.env.MEMORY_SNAPSHOTS === '1' ? join(ROOT, 'bench', 'results', 'profiles') : null;
  await subscribers(Number(args[0] ?? 2_000), Number(args[1] ?? 1), snapshots);
  if (snapshots)
    log(
      `heap snapshots in ${snapshots}; diff: node --import tsx bench/heap-diff.ts ${snapshots}/before.heapsnapshot ${snapshots}/after.heapsnapshot ${args[0] ?? 2_000}`,
    );
} else throw new Error('usage: bench/memory.ts idle [RUNS] | subscribers [COUNT] [PER_SOCKET] | graphiql [RUNS]');
