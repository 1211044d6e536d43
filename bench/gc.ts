import { randomBytes } from 'node:crypto';
import { sandboxClient } from './clients.js';
import { graphqlRequest, runLoad } from './load.js';
import { startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget, startPeer, type Target } from './targets.js';
import { tallyGcLines, type GcTally } from './gc-trace.js';
import { spread } from './stats.js';

// What the garbage collector does per nested read: the compiled gateway (start:prod's flags) and the yoga +
// graphql-jit peer under `--trace-gc-nvp`, against one sandbox (20 ms), QUERIES reads at CONNECTIONS per round,
// every target loaded in turn, the order rotating. Per target and round, from V8's own lines: scavenges and full
// collections per 100 reads, their pause per read, and per read the bytes allocated, promoted to the old
// generation (what was still reachable, for the scavenger, at two scavenges in a row) and copied within the young
// one. The pauses are V8's wall-clock account of the main thread: read them as ratios within one run.
// Usage: node --import tsx bench/gc.ts [ROUNDS=5] [QUERIES=200] [CONNECTIONS=10] [ENTRY …]
//   ENTRY: another build's dist/main.js, measured beside this one's (BENCH_COMPILED_ENTRY, default `npm run build`).
//   GC_QUERY: `funds`, or a query text taking `$refs` (default the nested read); GC_ENV: a JSON object of the
//   gateways' environment on top of the comparison's; GC_FLAGS / GC_PEER_FLAGS: the node flags of the gateways
//   (default start:prod's) and of the peer (default none), space-separated.

const [rounds, queries, connections] = [5, 200, 10].map((d, i) => Number(process.argv[2 + i] ?? d)) as [number, number, number];
/** Further compiled entries (another checkout's dist/main.js) to weigh against this one, each its own process. */
const others = process.argv.slice(5);
const log = (m: string) => process.stderr.write(`[gc] ${m}\n`);

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `gc-${randomBytes(8).toString('hex')}`, balanceCents: 2_000_000_000 });
const targets: { label: string; target: Target }[] = [];
try {
  const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
  if (!entry) throw new Error('no compiled entry');
  const env = process.env.GC_ENV ? (JSON.parse(process.env.GC_ENV) as Record<string, string>) : {};
  const flags = [...(process.env.GC_FLAGS ? process.env.GC_FLAGS.split(' ') : productionNodeFlags()), '--trace-gc-nvp'];
  targets.push({ label: `gateway (${entry})`, target: await startGatewayTarget('gateway-compiled', entry, sandbox, flags, env) });
  for (const other of others)
    targets.push({ label: `gateway (${other})`, target: await startGatewayTarget('gateway-baseline', other, sandbox, flags, env) });
  targets.push({
    label: 'yoga + graphql-jit',
    target: await startPeer('yoga-jit', sandbox, 'idle', [...(process.env.GC_PEER_FLAGS?.split(' ') ?? []), '--trace-gc-nvp']),
  });
  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `gc-${Date.now()}`);
  const request = process.env.GC_QUERY === 'funds' ? graphqlRequest(FUNDS) : graphqlRequest(process.env.GC_QUERY ?? NESTED, { refs });
  const request2 = { ...request, headers: { ...request.headers, ...AUTH_HEADERS } };
  // Warm-up: graphql-jit compiles on first execution, and the first scavenges size the young generation.
  for (const { target } of targets) await runLoad({ url: `${target.url}/graphql`, connections, amount: queries, requests: [request2] });
  const rows = new Map<string, GcTally[]>(targets.map((t) => [t.label, []]));
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const { label, target } of order) {
      const from = target.lines.length;
      const result = await runLoad({ url: `${target.url}/graphql`, connections, amount: queries, requests: [request2] });
      if (result.errors > 0) throw new Error(`${label}: ${result.errors} errors (${result.non2xx} non-2xx)`);
      rows.get(label)!.push(tallyGcLines(target.lines.slice(from)));
    }
    log(`round ${round + 1}/${rounds}`);
  }
  console.log(`\n${process.env.GC_QUERY ? 'GC_QUERY' : 'nested read'} at ${connections} connections, ${rounds} rounds × ${queries} reads:\n`);
  console.log(
    '| target | scavenges per 100 reads | full GCs per 100 reads | GC pause ms per read | KB allocated per read | KB promoted per read | KB surviving a scavenge per read |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, ts] of rows) {
    const perRead = (f: (t: GcTally) => number, digits = 1) =>
      spread(
        ts.map((t) => f(t) / queries),
        digits,
      );
    console.log(
      `| ${name} | ${perRead((t) => t.scavenges * 100)} | ${perRead((t) => t.fullGcs * 100)} | ${perRead((t) => t.pauseMs, 2)} | ${perRead((t) => t.allocatedKb, 0)} | ${perRead((t) => t.promotedKb, 0)} | ${perRead((t) => t.survivedKb, 0)} |`,
    );
  }
} finally {
  for (const { target } of targets) await target.stop();
  await sandbox.stop();
}
