import { randomBytes } from 'node:crypto';
import type { Request } from 'autocannon';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { ErrorTally, graphqlRequest, runLoad } from './load.js';
import { peakRssFromProc, resetPeakRss, rssFromProc, runtimeMs, startSandboxProcess } from './processes.js';
import { completeAnswerOf, createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget, startPeer, type Target } from './targets.js';
import { median, spread } from './stats.js';

// The young generation's size against CPU and memory: the compiled gateway started once per candidate
// `--max-semi-space-size` (start:prod's other flags kept; `none` = V8's default, 16 MB on 64-bit node 20) and the
// yoga + graphql-jit peer, all against one sandbox (20 ms). Every round loads every target in turn, the order
// rotating, with the comparison's round (bench/scenarios/compare.ts): `{ funds }` for 2 s, SERIAL nested reads
// one at a time, QUERIES at 10 connections, QUERIES at 50, 100 naming one order, 5 naming 50. Per target and
// round: CPU per query from the scheduler (/proc/…/schedstat, all threads) of the nested reads at 10 connections
// and one at a time and of `{ funds }`, and the resident set right after the round's load (as the comparison's
// "at its end") and its high-water mark over the round. Prints per figure the median [min–max] of the rounds and the
// median of the per-round ratios to the peer. V8 rounds the semi-space up to a power of two (24 runs as 32,
// 48 as 64), so those pairs also show the noise between two processes started alike.
// FLAG_SETS instead gives each candidate's whole node flag list, `|` between candidates (`plain`: no flags), to
// weigh start:prod's other flags the same way.
// Usage: node --import tsx bench/semi-space.ts [ROUNDS=5] [QUERIES=100] [SERIAL=20]
//        (SEMI_SPACES=none,16,24,32,48,64, or e.g. FLAG_SETS='plain|--enable-source-maps --max-semi-space-size=32';
//        BENCH_COMPILED_ENTRY as for `npm run bench`, default `npm run build`)

const [rounds, queries, serial] = [5, 100, 20].map((d, i) => Number(process.argv[2 + i] ?? d)) as [number, number, number];
const semiSpaces = (process.env.SEMI_SPACES ?? 'none,16,24,32,48,64').split(',').map((s) => s.trim());
for (const c of semiSpaces) if (c !== 'none' && !/^\d+$/.test(c)) throw new Error(`SEMI_SPACES: "${c}" is neither none nor a size in MB`);
const flagSets = process.env.FLAG_SETS?.split('|').map((set) => (set.trim() === 'plain' ? [] : set.trim().split(/\s+/)));
for (const flag of flagSets?.flat() ?? []) if (!/^--[a-z-]+(=\w+)?$/.test(flag)) throw new Error(`FLAG_SETS: "${flag}" is not a node flag`);
const log = (m: string) => process.stderr.write(`[semi-space] ${m}\n`);

const FUNDS_S = 2;
const HEAVY_CONNECTIONS = 50;
const NARROW = 100;
const WIDE = 5;
const WIDE_ORDERS = 50;

interface Figures {
  nestedCpu: number;
  serialCpu: number;
  fundsCpu: number;
  rssMb: number;
  peakRssMb: number;
  refused50: number;
}
const FIGURES: [keyof Figures, string, number][] = [
  ['nestedCpu', 'nested CPU ms/query, 10 conn', 2],
  ['serialCpu', 'nested CPU ms/query, one at a time', 2],
  ['fundsCpu', '{ funds } CPU ms/query', 3],
  ['rssMb', "RSS at the load's end, MB", 0],
  ['peakRssMb', 'peak RSS (VmHWM), MB', 0],
  ['refused50', 'refused at 50 conn, %', 1],
];

const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
if (!entry) throw new Error('no compiled gateway entry (npm run build failed?)');
// start:prod's flags without its semi-space size, which is what varies here (unless FLAG_SETS gives them all).
const baseFlags = productionNodeFlags().filter((f) => !f.startsWith('--max-semi-space-size'));
const candidates: { label: string; flags: string[] }[] =
  flagSets?.map((flags) => ({ label: flags.join(' ') || 'plain node', flags })) ??
  semiSpaces.map((c) =>
    c === 'none' ? { label: 'gateway default', flags: baseFlags } : { label: `gateway ${c} MB`, flags: [...baseFlags, `--max-semi-space-size=${c}`] },
  );
const sandbox = await startSandboxProcess({ latencyMs: 20, token: `semi-${randomBytes(8).toString('hex')}`, balanceCents: 2_000_000_000 });
const targets: { label: string; target: Target }[] = [];
try {
  for (const { label, flags } of candidates) {
    targets.push({ label, target: await startGatewayTarget('gateway-compiled', entry, sandbox, flags) });
    log(`${label} up (${flags.join(' ')})`);
  }
  targets.push({ label: 'yoga + graphql-jit', target: await startPeer('yoga-jit', sandbox) });
  const peer = targets.length - 1;

  const upstream = sandboxClient(sandbox);
  const prefix = `semi-${Date.now()}`;
  const refs = await createNestedOrders({ upstream }, prefix);
  const wideRefs = [...refs, ...(await createNestedOrders({ upstream }, `${prefix}-wide`, WIDE_ORDERS - refs.length))];
  const withKey = (request: Request) => ({ ...request, headers: { ...request.headers, ...AUTH_HEADERS } });
  const nestedLoad = (t: Target, connections: number, amount: number, r: string[], tally: ErrorTally) =>
    runLoad({
      url: t.url,
      connections: Math.min(connections, amount),
      amount,
      requests: [{ ...withKey(graphqlRequest(NESTED, { refs: r })), onResponse: (s, b) => void tally.check(s, b, completeAnswerOf(r.length)) }],
    });
  const cpuOf = async (t: Target, load: () => Promise<{ requests: number; sent: number }>, perSent = false) => {
    const before = runtimeMs(t.pid).all;
    const result = await load();
    return (runtimeMs(t.pid).all - before) / (perSent ? result.sent : result.requests);
  };

  const tallies = targets.map(() => new ErrorTally());
  // Warm-up, as the comparison's: documents compiled, pools and caches filled.
  for (const [i, { target }] of targets.entries()) {
    await runLoad({ url: target.url, connections: 10, duration: 1, requests: [withKey(graphqlRequest(FUNDS))] });
    await nestedLoad(target, 10, 20, refs, tallies[i]!);
  }
  for (const tally of tallies) tally.count = 0;

  const figures = targets.map(() => [] as Figures[]);
  for (let r = 0; r < rounds; r++) {
    const order = targets.map((_, i) => (i + r) % targets.length);
    for (const i of order) {
      const t = targets[i]!.target;
      const tally = tallies[i]!;
      resetPeakRss(t.pid);
      const fundsTally = new ErrorTally();
      // Queries still in flight at the end of a timed run cost CPU too: counted per query sent.
      const fundsCpu = await cpuOf(
        t,
        () =>
          runLoad({
            url: t.url,
            connections: 10,
            duration: FUNDS_S,
            requests: [{ ...withKey(graphqlRequest(FUNDS)), onResponse: (s, b) => void fundsTally.check(s, b) }],
          }),
        true,
      );
      await sleep(500);
      const serialCpu = await cpuOf(t, () => nestedLoad(t, 1, serial, refs, tally));
      const nestedCpu = await cpuOf(t, () => nestedLoad(t, 10, queries, refs, tally));
      const heavyTally = new ErrorTally();
      const heavy = await nestedLoad(t, HEAVY_CONNECTIONS, Math.max(HEAVY_CONNECTIONS, queries), refs, heavyTally);
      await nestedLoad(t, 10, NARROW, refs.slice(0, 1), tally);
      await nestedLoad(t, 10, WIDE, wideRefs, tally);
      tally.count += fundsTally.count;
      figures[i]!.push({
        nestedCpu,
        serialCpu,
        fundsCpu,
        rssMb: rssFromProc(t.pid) / 1024 / 1024,
        peakRssMb: peakRssFromProc(t.pid) / 1024 / 1024,
        refused50: (100 * heavyTally.count) / Math.max(1, heavy.requests),
      });
    }
    log(
      `round ${r + 1}/${rounds}: ${targets.map(({ label }, i) => `${label} ${figures[i]!.at(-1)!.nestedCpu.toFixed(2)} ms ${figures[i]!.at(-1)!.rssMb.toFixed(0)} MB`).join(', ')}`,
    );
  }

  console.log(`${rounds} rotating rounds, one sandbox (20 ms); median [min–max], and ÷ peer: the median of the per-round ratios`);
  for (const [f, name, digits] of FIGURES) {
    console.log(`\n${name}`);
    for (const [i, { label }] of targets.entries()) {
      const xs = figures[i]!.map((x) => x[f]);
      const ratio = i === peer || f === 'refused50' ? '' : `  ÷ peer ${median(xs.map((x, k) => x / figures[peer]![k]![f])).toFixed(2)}`;
      console.log(`  ${label.padEnd(Math.max(...targets.map((t) => t.label.length)))} ${spread(xs, digits)}${ratio}`);
    }
  }
  for (const [i, { label }] of targets.entries())
    if (tallies[i]!.count > 0) log(`${label}: ${tallies[i]!.count} bad answers, e.g. ${tallies[i]!.samples[0]}`);
} finally {
  for (const { target } of targets) await target.stop();
  await sandbox.stop();
}
