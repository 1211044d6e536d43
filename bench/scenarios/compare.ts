import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Request } from 'autocannon';
import { requestDelta, total } from '../clients.js';
import { sleep, type BenchContext } from '../context.js';
import { boundGoal, ratioGoal, showSpread, type Goal, type Spread } from '../goals.js';
import { ErrorTally, graphqlRequest, round, runLoad } from '../load.js';
import { peakRssFromProc, resetPeakRss, ROOT, rssFromProc, runtimeMs } from '../processes.js';
import { subscriberHeap, type SubscriberHeap } from '../subscriber-heap.js';
import {
  AUTH_HEADERS,
  compiledEntry,
  PEERS,
  productionNodeFlags,
  startGatewayTarget,
  startPeer,
  TARGET_LABELS,
  type StartMode,
  type Target,
  type TargetName,
} from '../targets.js';
import { completeAnswerOf, createNestedOrders, NESTED } from './nested-read.js';
import { FUNDS } from './overhead.js';
import { median } from '../stats.js';

/** The comparison runs its own servers, not the development gateway of the other scenarios. */
export type CompareContext = Omit<BenchContext, 'gateway'>;

// 0. Side by side: the gateway (production start, compiled; through tsx on request) and the three peers of
// bench/peers/ against the same sandbox, the same query texts, the same answers (compared byte for byte). Every
// round runs every target in turn, the order rotating from round to round, so a noisy neighbour on the shared
// machine lands on all of them rather than on one; the table gives the median of the rounds and their range
// [min–max], and a lead is claimed only where the ranges do not overlap (bench/goals.ts). The read cache is off
// in the gateway (CACHE_TTL_MS=0, bench/targets.ts): the peers have none, and the dashboard measures it.

export interface RoundFigures {
  /** `{ funds }` at BENCH_CONNECTIONS for BENCH_COMPARE_FUNDS_S seconds. */
  fundsPerSecond: number;
  fundsP50Ms: number;
  fundsP99Ms: number;
  fundsCpuMsPerQuery: number;
  /** The nested read one at a time. */
  serialP50Ms: number;
  serialP99Ms: number;
  serialCpuMsPerQuery: number;
  serialUpstreamPerQuery: number;
  /** The nested read at BENCH_CONNECTIONS. */
  nestedPerSecond: number;
  nestedP50Ms: number;
  nestedP99Ms: number;
  nestedCpuMsPerQuery: number;
  /** The nested read at 50 connections: good answers per second, p99, and the share not answered in full. */
  nested50PerSecond: number;
  nested50P99Ms: number;
  nested50RefusedShare: number;
  /** CPU per upstream call (µs) of queries naming one order and BENCH_WIDE_ORDERS orders. */
  narrowCpuUsPerCall: number;
  wideCpuUsPerCall: number;
  /** Resident set: the most over the target's loads of the round, at their end, and once the round has settled. */
  peakRssMb: number;
  rssAtLoadEndMb: number;
  rssAfterLoadMb: number;
}

type Figure = keyof RoundFigures;
/** The comparison table's rows a goal can belong to: a figure of the rounds, or one measured once. */
export type GoalFigure = Figure | 'idleRss' | 'idleCpu' | 'firstAnswer' | 'heap';

export interface TargetResult {
  name: TargetName;
  label: string;
  idleRssBytes: number;
  /** CPU over BENCH_IDLE_S seconds idle after start-up (all targets idle at once), ms. */
  idleCpuMs: number;
  /** From spawning the process to its first complete answer to `{ funds }` (a start of its own, after the rounds). */
  firstAnswerMs: number;
  /** Upstream requests of its first nested read (brand cache cold). */
  coldUpstream: number;
  /** Its answers to every query equal the first target's, byte for byte (trailing whitespace aside). */
  identical: boolean;
  rounds: RoundFigures[];
  median: RoundFigures;
  min: RoundFigures;
  max: RoundFigures;
  errors: number;
  errorSamples: string[];
  /** Samples of what was not answered in full at 50 connections (counted in nested50RefusedShare, not in errors). */
  refusedSamples: string[];
}

export interface CompareResult {
  rounds: number;
  connections: number;
  wideOrders: number;
  idleSeconds: number;
  settleSeconds: number;
  targets: TargetResult[];
  subscriberHeap: SubscriberHeap | null;
  goals: Goal[];
  /** Where the CPU profiles of the gateway targets went (`--profile`), else null. */
  profileDir: string | null;
}

/** Connections of the overload phase: where issue 22 saw refusals, and issue 30 asks for none. */
export const HEAVY_CONNECTIONS = 50;

/** Extra quiet before the idle CPU window, so the last target started is past its start-up work too. */
const IDLE_SETTLE_MS = 5_000;

const FIGURES: Figure[] = [
  'fundsPerSecond',
  'fundsP50Ms',
  'fundsP99Ms',
  'fundsCpuMsPerQuery',
  'serialP50Ms',
  'serialP99Ms',
  'serialCpuMsPerQuery',
  'serialUpstreamPerQuery',
  'nestedPerSecond',
  'nestedP50Ms',
  'nestedP99Ms',
  'nestedCpuMsPerQuery',
  'nested50PerSecond',
  'nested50P99Ms',
  'nested50RefusedShare',
  'narrowCpuUsPerCall',
  'wideCpuUsPerCall',
  'peakRssMb',
  'rssAtLoadEndMb',
  'rssAfterLoadMb',
];

function summarise(rounds: RoundFigures[], pick: (values: number[]) => number): RoundFigures {
  return Object.fromEntries(FIGURES.map((f) => [f, round(pick(rounds.map((r) => r[f])), 3)])) as unknown as RoundFigures;
}

/** How each wanted target is started: for the rounds (`idle`, settled) and again for its start-up time (`first-answer`). */
function startersOf(ctx: CompareContext, profileDir: string | null): [TargetName, (mode: StartMode) => Promise<Target>][] {
  const { sandbox, log, settings } = ctx;
  const wanted = new Set(settings.BENCH_TARGETS);
  // --profile: the gateways under --cpu-prof for the rounds (written when they stop); their CPU figures include its cost.
  const profiling = (mode: StartMode) => (profileDir && mode === 'idle' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const starters: [TargetName, (mode: StartMode) => Promise<Target>][] = [];
  starters.push(['gateway-tsx', (mode) => startGatewayTarget('gateway-tsx', 'src/main.ts', sandbox, profiling(mode), {}, mode)]);
  const entry = wanted.has('gateway-compiled') ? compiledEntry(settings.BENCH_COMPILED_ENTRY, log) : null;
  if (entry)
    starters.push([
      'gateway-compiled',
      (mode) => startGatewayTarget('gateway-compiled', entry, sandbox, [...productionNodeFlags(), ...profiling(mode)], {}, mode),
    ]);
  const baseline = settings.BENCH_BASELINE_ENTRY;
  // The baseline checkout's own start:prod flags are not known here; it runs with this checkout's.
  if (baseline)
    starters.push([
      'gateway-baseline',
      (mode) => startGatewayTarget('gateway-baseline', baseline, sandbox, productionNodeFlags(), settings.BENCH_BASELINE_ENV, mode),
    ]);
  for (const peer of PEERS) starters.push([peer, (mode) => startPeer(peer, sandbox, mode)]);
  return starters.filter(([name]) => wanted.has(name));
}

export async function compare(ctx: CompareContext): Promise<CompareResult> {
  const { settings, upstream, log } = ctx;
  const connections = settings.BENCH_CONNECTIONS;
  const prefix = `bench-compare-${Date.now()}`;
  const refs = await createNestedOrders(ctx, prefix);
  // The wide query names BENCH_WIDE_ORDERS orders: the nested read's and more of the same kind.
  const wideRefs = [...refs, ...(await createNestedOrders(ctx, `${prefix}-wide`, settings.BENCH_WIDE_ORDERS - refs.length))];
  const narrowRefs = refs.slice(0, 1);
  const profileDir = settings.BENCH_CPU_PROF ? join(ROOT, 'bench', 'results', 'profiles', 'compare') : null;
  // Only this run's profiles, so the summary at the end reads the right ones.
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  const starters = startersOf(ctx, profileDir);
  const targets: Target[] = [];
  try {
    for (const [name, start] of starters) {
      targets.push(await start('idle'));
      log(`compare: ${TARGET_LABELS[name]} up, idle RSS ${(targets.at(-1)!.idleRssBytes / 1024 / 1024).toFixed(0)} MB`);
    }
    // Idle CPU: every target idle at once, after start-up has settled (bench/targets.ts waits 3 s after each
    // start; the last one started gets IDLE_SETTLE_MS more, for its compiler threads and first GCs), read from
    // the scheduler's exact account: /proc/…/stat counts 10 ms ticks, as coarse as the figure itself.
    await sleep(IDLE_SETTLE_MS);
    const idleFrom = new Map(targets.map((t) => [t.name, runtimeMs(t.pid).all]));
    await sleep(settings.BENCH_IDLE_S * 1_000);
    const idleCpuMs = new Map(targets.map((t) => [t.name, Math.round((runtimeMs(t.pid).all - idleFrom.get(t.name)!) * 10) / 10]));

    const tallies = new Map(targets.map((t) => [t.name, new ErrorTally()]));
    const heavyTallies = new Map(targets.map((t) => [t.name, new ErrorTally()]));
    const withKey = (request: Request) => ({ ...request, headers: { ...request.headers, ...AUTH_HEADERS } });
    const funds = withKey(graphqlRequest(FUNDS));
    const nested = (r: string[]) => withKey(graphqlRequest(NESTED, { refs: r }));
    const fundsLoad = (t: Target, duration: number) =>
      runLoad({ url: t.url, connections, duration, requests: [{ ...funds, onResponse: (s, b) => void tallies.get(t.name)!.check(s, b) }] });
    const nestedLoad = (t: Target, conns: number, amount: number, r = refs, tally = tallies.get(t.name)!) =>
      runLoad({
        url: t.url,
        // autocannon refuses more connections than requests (the wide query's few).
        connections: Math.min(conns, amount),
        amount,
        requests: [{ ...nested(r), onResponse: (s, b) => void tally.check(s, b, completeAnswerOf(r.length)) }],
      });
    /** CPU (ms) and upstream requests of one load. */
    const measured = async <T>(t: Target, load: () => Promise<T>) => {
      const before = await upstream.stats();
      const cpu = runtimeMs(t.pid).all;
      const result = await load();
      const cpuMs = runtimeMs(t.pid).all - cpu;
      return { result, cpuMs, upstream: total(requestDelta(before, await upstream.stats())) };
    };

    // Cold read (brand caches empty), the answers compared, and a warm-up, one target at a time.
    const answers = new Map<TargetName, string>();
    const cold = new Map<TargetName, number>();
    for (const t of targets) {
      const before = await upstream.stats();
      const first = await post(t.url, NESTED, { refs });
      cold.set(t.name, total(requestDelta(before, await upstream.stats())));
      const others = await Promise.all([post(t.url, FUNDS), post(t.url, NESTED, { refs: narrowRefs }), post(t.url, NESTED, { refs: wideRefs })]);
      answers.set(t.name, [first, ...others].map((a) => a.trimEnd()).join('\n'));
      await fundsLoad(t, 1);
      await nestedLoad(t, connections, 2 * connections);
    }
    for (const tally of tallies.values()) tally.count = 0;

    const rounds = new Map<TargetName, RoundFigures[]>(targets.map((t) => [t.name, []]));
    for (let r = 0; r < settings.BENCH_ROUNDS; r++) {
      const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
      log(`compare: round ${r + 1}/${settings.BENCH_ROUNDS} (${order.map((t) => t.name).join(', ')})`);
      for (const t of order) {
        // Where the kernel refuses, the peak is the process's since it started (the run's log says so).
        if (!resetPeakRss(t.pid)) log(`compare: ${TARGET_LABELS[t.name]}: peak RSS not reset (clear_refs refused)`);
        const cpu = runtimeMs(t.pid).all;
        const f = await fundsLoad(t, settings.BENCH_COMPARE_FUNDS_S);
        const fundsCpuMs = runtimeMs(t.pid).all - cpu;
        // A timed run ends with queries in flight; their upstream reads must not land in the next count.
        await sleep(500);
        const serial = await measured(t, () => nestedLoad(t, 1, settings.BENCH_COMPARE_SERIAL));
        const concurrent = await measured(t, () => nestedLoad(t, connections, settings.BENCH_COMPARE_CONCURRENT));
        const heavyTally = heavyTallies.get(t.name)!;
        const refusedBefore = heavyTally.count;
        const heavy = await nestedLoad(t, HEAVY_CONNECTIONS, Math.max(HEAVY_CONNECTIONS, settings.BENCH_COMPARE_CONCURRENT), refs, heavyTally);
        const refused = heavyTally.count - refusedBefore;
        const narrow = await measured(t, () => nestedLoad(t, connections, settings.BENCH_COMPARE_NARROW, narrowRefs));
        const wide = await measured(t, () => nestedLoad(t, connections, settings.BENCH_COMPARE_WIDE, wideRefs));
        rounds.get(t.name)!.push({
          fundsPerSecond: f.perSecond,
          fundsP50Ms: f.p50Ms,
          fundsP99Ms: f.p99Ms,
          // Queries still in flight at the end of a timed run cost CPU too.
          fundsCpuMsPerQuery: round(fundsCpuMs / f.sent, 3),
          serialP50Ms: serial.result.p50Ms,
          serialP99Ms: serial.result.p99Ms,
          serialCpuMsPerQuery: round(serial.cpuMs / serial.result.requests, 2),
          serialUpstreamPerQuery: round(serial.upstream / serial.result.requests, 3),
          nestedPerSecond: concurrent.result.perSecond,
          nestedP50Ms: concurrent.result.p50Ms,
          nestedP99Ms: concurrent.result.p99Ms,
          nestedCpuMsPerQuery: round(concurrent.cpuMs / concurrent.result.requests, 2),
          nested50PerSecond: round((heavy.perSecond * (heavy.requests - refused)) / Math.max(1, heavy.requests)),
          nested50P99Ms: heavy.p99Ms,
          nested50RefusedShare: round(refused / Math.max(1, heavy.requests), 3),
          narrowCpuUsPerCall: round((narrow.cpuMs * 1000) / Math.max(1, narrow.upstream), 1),
          wideCpuUsPerCall: round((wide.cpuMs * 1000) / Math.max(1, wide.upstream), 1),
          peakRssMb: round(peakRssFromProc(t.pid) / 1024 / 1024, 1),
          rssAtLoadEndMb: round(rssFromProc(t.pid) / 1024 / 1024, 1),
          // Read once the round has settled, below.
          rssAfterLoadMb: NaN,
        });
      }
      // What a process keeps after a spike, rather than what it still holds at the spike's last answer: the
      // round's last target is left BENCH_COMPARE_SETTLE_S quiet, the others longer (quiet during the loads after
      // theirs); the order rotates, so each target's rounds mix short and long quiets.
      await sleep(settings.BENCH_COMPARE_SETTLE_S * 1_000);
      for (const t of targets) rounds.get(t.name)!.at(-1)!.rssAfterLoadMb = round(rssFromProc(t.pid) / 1024 / 1024, 1);
    }

    const reference = answers.get(targets[0]!.name);
    const results: TargetResult[] = targets.map((t) => {
      const rs = rounds.get(t.name)!;
      const tally = tallies.get(t.name)!;
      return {
        name: t.name,
        label: TARGET_LABELS[t.name],
        idleRssBytes: t.idleRssBytes,
        idleCpuMs: idleCpuMs.get(t.name)!,
        // Timed in a start of its own below.
        firstAnswerMs: NaN,
        coldUpstream: cold.get(t.name)!,
        identical: answers.get(t.name) === reference,
        rounds: rs,
        median: summarise(rs, median),
        min: summarise(rs, (v) => Math.min(...v)),
        max: summarise(rs, (v) => Math.max(...v)),
        errors: tally.count,
        errorSamples: tally.samples,
        refusedSamples: heavyTallies.get(t.name)!.samples,
      };
    });
    for (const t of results)
      if (!t.identical) log(`compare: ${t.label} answered differently:\n${answers.get(t.name)!.slice(0, 600)}\nvs\n${reference!.slice(0, 600)}`);
    await Promise.all(targets.map((t) => t.stop()));

    // Start to first answer: each target started once more on its own, timed from the spawn.
    const firstAnswerMs = new Map<TargetName, number>();
    for (const [name, start] of starters) {
      const again = await start('first-answer');
      await again.stop();
      firstAnswerMs.set(name, again.firstAnswerMs!);
      log(`compare: ${TARGET_LABELS[name]} answered ${again.firstAnswerMs} ms after its spawn`);
    }
    for (const r of results) r.firstAnswerMs = firstAnswerMs.get(r.name)!;

    // Heap per idle subscriber: the compiled gateway against a bare yoga + graphql-ws server, one after the other.
    const entry = targets.some((t) => t.name === 'gateway-compiled') ? compiledEntry(settings.BENCH_COMPILED_ENTRY, log) : null;
    let heap: SubscriberHeap | null = null;
    if (entry) {
      log(`compare: heap per idle subscriber, ${settings.BENCH_COMPARE_SUBSCRIBERS} each, compiled gateway and bare yoga + graphql-ws`);
      heap = await subscriberHeap(ctx.sandbox, entry, settings.BENCH_COMPARE_SUBSCRIBERS);
    }
    return {
      rounds: settings.BENCH_ROUNDS,
      connections,
      wideOrders: wideRefs.length,
      idleSeconds: settings.BENCH_IDLE_S,
      settleSeconds: settings.BENCH_COMPARE_SETTLE_S,
      targets: results,
      subscriberHeap: heap,
      goals: goalsOf(results, heap, connections, wideRefs.length),
      profileDir,
    };
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}

const spreadOf = (t: TargetResult, f: Figure): Spread => ({ median: t.median[f], min: t.min[f], max: t.max[f] });
const point = (v: number): Spread => ({ median: v, min: v, max: v });

/** Issue 30's goals, each against the best peer of its figure in this run, for every gateway target measured. */
function goalsOf(targets: TargetResult[], heap: SubscriberHeap | null, connections: number, wideOrders: number): Goal[] {
  const peers = targets.filter((t) => (PEERS as readonly string[]).includes(t.name));
  const goals: Goal[] = [];
  /** The peer with the best median of `f`; a peer with no reading of it (a /proc field missing: NaN) is none. */
  const best = (f: Figure, higherIsBetter: boolean) =>
    peers
      .filter((p) => Number.isFinite(p.median[f]))
      .reduce<TargetResult | undefined>(
        (b, p) => (!b || (higherIsBetter ? p.median[f] > b.median[f] : p.median[f] < b.median[f]) ? p : b),
        undefined,
      );
  for (const g of targets.filter((t) => t.name.startsWith('gateway') && t.name !== 'gateway-baseline')) {
    const who = g.name === 'gateway-compiled' ? '' : ` (${g.label})`;
    /** Goals carry the row of the comparison table they belong to (`figure`) and the gateway they are of. */
    const add = (figure: GoalFigure, goal: Goal) => goals.push({ ...goal, goal: goal.goal + who, figure, target: g.name });
    const vsBest = (goal: string, f: Figure, bound: number, higherIsBetter = false, digits = 2) => {
      const peer = best(f, higherIsBetter);
      if (peer) add(f, ratioGoal({ goal, ours: spreadOf(g, f), theirs: spreadOf(peer, f), theirName: peer.label, bound, higherIsBetter, digits }));
    };
    vsBest('nested read CPU ms per query, one at a time ÷ best peer', 'serialCpuMsPerQuery', 1);
    vsBest(`nested read CPU ms per query, ${connections} connections ÷ best peer`, 'nestedCpuMsPerQuery', 1);
    vsBest(`nested read q/s, ${connections} connections ÷ best peer`, 'nestedPerSecond', 1, true, 1);
    vsBest(`nested read p99 ms, ${connections} connections ÷ best peer`, 'nestedP99Ms', 1, false, 0);
    add(
      'nested50RefusedShare',
      boundGoal(
        `nested read not answered in full, ${HEAVY_CONNECTIONS} connections`,
        `${showSpread(point(g.max.nested50RefusedShare * 100), 1)} % (worst round)`,
        '0',
        g.max.nested50RefusedShare === 0,
      ),
    );
    vsBest(`nested read good answers/s, ${HEAVY_CONNECTIONS} connections ÷ best peer`, 'nested50PerSecond', 1, true, 1);
    vsBest(`nested read p99 ms, ${HEAVY_CONNECTIONS} connections ÷ best peer`, 'nested50P99Ms', 1, false, 0);
    vsBest(`\`{ funds }\` CPU ms per query ÷ best peer`, 'fundsCpuMsPerQuery', 1);
    vsBest(`\`{ funds }\` p99 ms ÷ best peer`, 'fundsP99Ms', 1, false, 0);
    add('wideCpuUsPerCall', {
      ...ratioGoal({
        goal: `CPU µs per upstream call, ${wideOrders} orders per query ÷ one order (flat)`,
        ours: spreadOf(g, 'wideCpuUsPerCall'),
        theirs: spreadOf(g, 'narrowCpuUsPerCall'),
        theirName: 'one order:',
        bound: 1,
        digits: 0,
      }),
      // Against itself, not a peer: flat or not, no lead to claim.
      verdict: '—',
    });
    vsBest('peak RSS under the load, MB ÷ best peer', 'peakRssMb', 1.2, false, 0);
    vsBest('RSS after the load (settled), MB ÷ best peer', 'rssAfterLoadMb', 1.1, false, 0);
    if (g.name === 'gateway-compiled') {
      add(
        'idleRss',
        boundGoal(
          'idle RSS of the compiled production start',
          `${(g.idleRssBytes / 1024 / 1024).toFixed(1)} MB`,
          '≤ 100 MB',
          g.idleRssBytes <= 100 * 1024 * 1024,
        ),
      );
      add('firstAnswer', boundGoal('compiled start to first answer', `${g.firstAnswerMs} ms`, '≤ 1000 ms', g.firstAnswerMs <= 1000));
    }
    const quietest = peers.reduce<TargetResult | undefined>((b, p) => (!b || p.idleCpuMs < b.idleCpuMs ? p : b), undefined);
    if (quietest)
      add(
        'idleCpu',
        boundGoal(
          'CPU while idle, ms over the idle window',
          `${g.idleCpuMs} ms`,
          '≤ quietest peer',
          g.idleCpuMs <= quietest.idleCpuMs,
          `${quietest.label} ${quietest.idleCpuMs} ms`,
        ),
      );
    if (heap && g.name === 'gateway-compiled') {
      const above = heap.gatewayBytesPerSubscriber - heap.bareBytesPerSubscriber;
      add(
        'heap',
        boundGoal(
          `heap per idle subscriber above bare yoga + graphql-ws (${heap.subscribers} subscribers, one WebSocket each)`,
          `${(heap.gatewayBytesPerSubscriber / 1024).toFixed(1)} KB (${above >= 0 ? '+' : '−'}${(Math.abs(above) / 1024).toFixed(1)} KB)`,
          '≤ +1 KB',
          above <= 1024,
          `bare ${(heap.bareBytesPerSubscriber / 1024).toFixed(1)} KB`,
        ),
      );
    }
  }
  // Not a goal of the issues: whether this checkout is cheaper than the baseline checkout, in the same run.
  const baseline = targets.find((t) => t.name === 'gateway-baseline');
  const compiled = targets.find((t) => t.name === 'gateway-compiled');
  if (baseline && compiled) {
    for (const f of ['nestedCpuMsPerQuery', 'fundsCpuMsPerQuery'] as const)
      goals.push(
        ratioGoal({ goal: `${f} ÷ baseline`, ours: spreadOf(compiled, f), theirs: spreadOf(baseline, f), theirName: baseline.label, bound: 1 }),
      );
  }
  return goals;
}

/** One POST as a client sends it, answered with the body text exactly as received. */
async function post(url: string, query: string, variables?: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...AUTH_HEADERS },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}
