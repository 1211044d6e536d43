import { randomBytes } from 'node:crypto';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { graphqlRequest, runLoad } from './load.js';
import { peakRssFromProc, resetPeakRss, rssFromProc, runtimeMs, startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget, startPeer, type Target } from './targets.js';
import { spread } from './stats.js';

// What a process keeps after a spike, and when V8 gives it back: the compiled gateway (start:prod's flags) and the
// yoga + graphql-jit peer, against one sandbox (20 ms).
// Per round each target in turn serves QUERIES nested reads at CONNECTIONS, then is left quiet and its RSS read
// every SAMPLE_S seconds up to QUIET_S (the others are quiet meanwhile). Also the CPU per read of the load, which
// follows the others' loads and quiets: what a burst costs after a quiet spell (one that V8 used to shrink the
// young generation starts with it small, to grow again). Prints the median [min–max] of the rounds.
// With AFTER_SPIKE_TRIM_OFF=1, the gateway also runs a second time with its heap trim off (HEAP_TRIM_AFTER_MS=0,
// src/ops/heap-trim.ts): what the trim gives back, and what the load after a trim costs.
// Usage: node --import tsx bench/after-spike.ts [ROUNDS=3] [QUERIES=600] [CONNECTIONS=10] [QUIET_S=20]

const [rounds, queries, connections, quietS] = [3, 600, 10, 20].map((d, i) => Number(process.argv[2 + i] ?? d)) as [number, number, number, number];
const SAMPLE_S = 5;
if (![rounds, queries, connections, quietS].every((n) => Number.isInteger(n) && n > 0) || quietS % SAMPLE_S !== 0)
  throw new Error(
    `usage: bench/after-spike.ts [ROUNDS=3] [QUERIES=600] [CONNECTIONS=10] [QUIET_S=20]: whole numbers, QUIET_S a multiple of ${SAMPLE_S}`,
  );
const log = (m: string) => process.stderr.write(`[after-spike] ${m}\n`);
const mb = (bytes: number) => bytes / 1024 / 1024;

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `spike-${randomBytes(8).toString('hex')}`, balanceCents: 2_000_000_000 });
const targets: { label: string; target: Target }[] = [];
try {
  const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
  if (!entry) throw new Error('no compiled entry');
  targets.push({ label: 'gateway', target: await startGatewayTarget('gateway-compiled', entry, sandbox, productionNodeFlags()) });
  if (process.env.AFTER_SPIKE_TRIM_OFF === '1')
    targets.push({
      label: 'gateway, heap trim off',
      target: await startGatewayTarget('gateway-compiled', entry, sandbox, productionNodeFlags(), { HEAP_TRIM_AFTER_MS: '0' }),
    });
  targets.push({ label: 'yoga + graphql-jit', target: await startPeer('yoga-jit', sandbox) });
  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `spike-${Date.now()}`);
  const nested = graphqlRequest(NESTED, { refs });
  const request = { ...nested, headers: { ...nested.headers, ...AUTH_HEADERS } };
  const offsets = Array.from({ length: Math.floor(quietS / SAMPLE_S) + 1 }, (_, i) => i * SAMPLE_S);
  const rows = new Map<string, { idle: number[]; cpu: number[]; peak: number[]; after: number[][] }>(
    targets.map((t) => [t.label, { idle: [], cpu: [], peak: [], after: offsets.map(() => []) }]),
  );
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const { label, target } of order) {
      const row = rows.get(label)!;
      row.idle.push(mb(rssFromProc(target.pid)));
      if (!resetPeakRss(target.pid)) log(`${label}: peak RSS not reset (clear_refs refused): the peak is since start-up`);
      const cpu = runtimeMs(target.pid).all;
      const result = await runLoad({ url: `${target.url}/graphql`, connections, amount: queries, requests: [request] });
      if (result.errors > 0) throw new Error(`${label}: ${result.errors} errors (${result.non2xx} non-2xx)`);
      row.cpu.push((runtimeMs(target.pid).all - cpu) / queries);
      row.peak.push(mb(peakRssFromProc(target.pid)));
      for (const [i, offset] of offsets.entries()) {
        if (offset > 0) await sleep(SAMPLE_S * 1_000);
        row.after[i]!.push(mb(rssFromProc(target.pid)));
      }
    }
    log(`round ${round + 1}/${rounds}`);
  }
  console.log(`\nRSS in MB around ${queries} nested reads at ${connections} connections, ${rounds} rounds:\n`);
  console.log(
    `| target | CPU ms per read | before the load | peak under it | ${offsets.map((s) => (s === 0 ? 'at its end' : `${s} s after`)).join(' | ')} |`,
  );
  console.log(`|---|---|---|---|${offsets.map(() => '---|').join('')}`);
  for (const [label, row] of rows)
    console.log(
      `| ${label} | ${spread(row.cpu, 2)} | ${spread(row.idle, 0)} | ${spread(row.peak, 0)} | ${row.after.map((v) => spread(v, 0)).join(' | ')} |`,
    );
} finally {
  for (const { target } of targets) await target.stop();
  await sandbox.stop();
}
