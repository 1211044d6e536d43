import type { Request } from 'autocannon';
import { requestDelta, total } from '../clients.js';
import { sleep, type BenchContext } from '../context.js';

/** The comparison runs its own servers, not the development gateway of the other scenarios. */
export type CompareContext = Omit<BenchContext, 'gateway'>;
import { ErrorTally, graphqlRequest, round, runLoad } from '../load.js';
import { cpuSeconds } from '../processes.js';
import {
  AUTH_HEADERS,
  compiledEntry,
  productionNodeFlags,
  startGatewayTarget,
  startPeer,
  TARGET_LABELS,
  type Target,
  type TargetName,
} from '../targets.js';
import { completeNestedAnswer, createNestedOrders, NESTED } from './nested-read.js';
import { FUNDS } from './overhead.js';

// 0. Side by side: the gateway (production start, through tsx and compiled) and the two peers of bench/peers/
// against the same sandbox, the same queries, the same answers. Every round runs every target in turn, the
// order rotating from round to round, so a noisy neighbour on the shared machine lands on all of them rather
// than on one; the table gives the median of the rounds and their spread (min–max). Only ratios of figures
// from the same run are compared.

export interface RoundFigures {
  /** `{ funds }` at BENCH_CONNECTIONS for BENCH_COMPARE_FUNDS_S seconds. */
  fundsPerSecond: number;
  fundsP50Ms: number;
  fundsP99Ms: number;
  fundsCpuMsPerQuery: number;
  /** The nested read one at a time. */
  serialP50Ms: number;
  serialP99Ms: number;
  serialUpstreamPerQuery: number;
  /** The nested read at BENCH_CONNECTIONS. */
  nestedPerSecond: number;
  nestedP50Ms: number;
  nestedP99Ms: number;
  nestedCpuMsPerQuery: number;
}

type Figure = keyof RoundFigures;

export interface TargetResult {
  name: TargetName;
  label: string;
  idleRssBytes: number;
  /** Upstream requests of its first nested read (brand cache cold). */
  coldUpstream: number;
  /** Its answers to both queries equal the first target's, byte for byte (trailing whitespace aside). */
  identical: boolean;
  rounds: RoundFigures[];
  median: RoundFigures;
  min: RoundFigures;
  max: RoundFigures;
  errors: number;
  errorSamples: string[];
}

export interface Ratio {
  goal: string;
  target: TargetName;
  value: number;
  /** The goal's bound on the ratio, and on which side it must stay. */
  bound: number;
  atMost: boolean;
  met: boolean;
}

export interface CompareResult {
  rounds: number;
  connections: number;
  targets: TargetResult[];
  ratios: Ratio[];
}

const FIGURES: Figure[] = [
  'fundsPerSecond',
  'fundsP50Ms',
  'fundsP99Ms',
  'fundsCpuMsPerQuery',
  'serialP50Ms',
  'serialP99Ms',
  'serialUpstreamPerQuery',
  'nestedPerSecond',
  'nestedP50Ms',
  'nestedP99Ms',
  'nestedCpuMsPerQuery',
];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function summarise(rounds: RoundFigures[], pick: (values: number[]) => number): RoundFigures {
  return Object.fromEntries(FIGURES.map((f) => [f, round(pick(rounds.map((r) => r[f])), 2)])) as unknown as RoundFigures;
}

async function startTargets(ctx: CompareContext): Promise<Target[]> {
  const { sandbox, log, settings } = ctx;
  const wanted = new Set(settings.BENCH_TARGETS);
  const targets: Target[] = [];
  const start = async (name: TargetName, starter: () => Promise<Target>) => {
    if (!wanted.has(name)) return;
    const target = await starter();
    log(`compare: ${TARGET_LABELS[name]} up, idle RSS ${(target.idleRssBytes / 1024 / 1024).toFixed(0)} MB`);
    targets.push(target);
  };
  await start('gateway-tsx', () => startGatewayTarget('gateway-tsx', 'src/main.ts', sandbox));
  if (wanted.has('gateway-compiled')) {
    const entry = compiledEntry(settings.BENCH_COMPILED_ENTRY, log);
    if (entry) await start('gateway-compiled', () => startGatewayTarget('gateway-compiled', entry, sandbox, productionNodeFlags()));
  }
  const baseline = settings.BENCH_BASELINE_ENTRY;
  // The baseline checkout's own start:prod flags are not known here; it runs with this checkout's.
  if (baseline) await start('gateway-baseline', () => startGatewayTarget('gateway-baseline', baseline, sandbox, productionNodeFlags()));
  await start('apollo', () => startPeer('apollo', sandbox));
  await start('yoga', () => startPeer('yoga', sandbox));
  return targets;
}

export async function compare(ctx: CompareContext): Promise<CompareResult> {
  const { settings, upstream, log } = ctx;
  const connections = settings.BENCH_CONNECTIONS;
  const refs = await createNestedOrders(ctx, `bench-compare-${Date.now()}`);
  const targets = await startTargets(ctx);
  try {
    const tallies = new Map(targets.map((t) => [t.name, new ErrorTally()]));
    const withKey = (request: Request) => ({ ...request, headers: { ...request.headers, ...AUTH_HEADERS } });
    const funds = withKey(graphqlRequest(FUNDS));
    const nested = withKey(graphqlRequest(NESTED, { refs }));
    const fundsLoad = (t: Target, duration: number) =>
      runLoad({ url: t.url, connections, duration, requests: [{ ...funds, onResponse: (s, b) => void tallies.get(t.name)!.check(s, b) }] });
    const nestedLoad = (t: Target, conns: number, amount: number) =>
      runLoad({
        url: t.url,
        connections: conns,
        amount,
        requests: [{ ...nested, onResponse: (s, b) => void tallies.get(t.name)!.check(s, b, completeNestedAnswer) }],
      });

    // Cold read (brand caches empty), the answers compared, and a warm-up, one target at a time.
    const answers = new Map<TargetName, string>();
    const cold = new Map<TargetName, number>();
    for (const t of targets) {
      const before = await upstream.stats();
      const first = await post(t.url, NESTED, { refs });
      cold.set(t.name, total(requestDelta(before, await upstream.stats())));
      answers.set(t.name, `${(await post(t.url, FUNDS)).trimEnd()}\n${first.trimEnd()}`);
      await fundsLoad(t, 1);
      await nestedLoad(t, connections, 2 * connections);
    }
    for (const tally of tallies.values()) tally.count = 0;

    const rounds = new Map<TargetName, RoundFigures[]>(targets.map((t) => [t.name, []]));
    for (let r = 0; r < settings.BENCH_ROUNDS; r++) {
      const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
      log(`compare: round ${r + 1}/${settings.BENCH_ROUNDS} (${order.map((t) => t.name).join(', ')})`);
      for (const t of order) {
        let cpu = cpuSeconds(t.pid);
        const f = await fundsLoad(t, settings.BENCH_COMPARE_FUNDS_S);
        const fundsCpu = cpuSeconds(t.pid) - cpu;

        // A timed run ends with queries in flight; their upstream reads must not land in the next count.
        await sleep(500);
        const before = await upstream.stats();
        const serial = await nestedLoad(t, 1, settings.BENCH_COMPARE_SERIAL);
        const serialUpstream = total(requestDelta(before, await upstream.stats()));

        cpu = cpuSeconds(t.pid);
        const concurrent = await nestedLoad(t, connections, settings.BENCH_COMPARE_CONCURRENT);
        const nestedCpu = cpuSeconds(t.pid) - cpu;
        rounds.get(t.name)!.push({
          fundsPerSecond: f.perSecond,
          fundsP50Ms: f.p50Ms,
          fundsP99Ms: f.p99Ms,
          // Queries still in flight at the end of a timed run cost CPU too.
          fundsCpuMsPerQuery: round((fundsCpu * 1000) / f.sent, 3),
          serialP50Ms: serial.p50Ms,
          serialP99Ms: serial.p99Ms,
          serialUpstreamPerQuery: round(serialUpstream / serial.requests, 3),
          nestedPerSecond: concurrent.perSecond,
          nestedP50Ms: concurrent.p50Ms,
          nestedP99Ms: concurrent.p99Ms,
          nestedCpuMsPerQuery: round((nestedCpu * 1000) / concurrent.requests, 2),
        });
      }
    }

    const reference = answers.get(targets[0]!.name);
    const results: TargetResult[] = targets.map((t) => {
      const rs = rounds.get(t.name)!;
      const tally = tallies.get(t.name)!;
      return {
        name: t.name,
        label: TARGET_LABELS[t.name],
        idleRssBytes: t.idleRssBytes,
        coldUpstream: cold.get(t.name)!,
        identical: answers.get(t.name) === reference,
        rounds: rs,
        median: summarise(rs, median),
        min: summarise(rs, (v) => Math.min(...v)),
        max: summarise(rs, (v) => Math.max(...v)),
        errors: tally.count,
        errorSamples: tally.samples,
      };
    });
    for (const t of results)
      if (!t.identical) log(`compare: ${t.label} answered differently:\n${answers.get(t.name)!.slice(0, 600)}\nvs\n${reference!.slice(0, 600)}`);
    return { rounds: settings.BENCH_ROUNDS, connections, targets: results, ratios: ratiosOf(results) };
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}

/** The goals, each a ratio of medians from this run, for every gateway target measured. */
function ratiosOf(targets: TargetResult[]): Ratio[] {
  const by = (name: TargetName) => targets.find((t) => t.name === name)?.median;
  const yoga = by('yoga');
  const apollo = by('apollo');
  const peers = [yoga, apollo].filter((p): p is RoundFigures => p !== undefined);
  const ratios: Ratio[] = [];
  const add = (goal: string, target: TargetName, value: number, bound: number, atMost: boolean) =>
    ratios.push({ goal, target, value: round(value, 2), bound, atMost, met: atMost ? value <= bound : value >= bound });
  for (const g of targets.filter((t) => t.name.startsWith('gateway') && t.name !== 'gateway-baseline')) {
    const m = g.median;
    if (yoga) add('nested read CPU per query ÷ plain yoga', g.name, m.nestedCpuMsPerQuery / yoga.nestedCpuMsPerQuery, 0.8, true);
    if (peers.length) {
      add('nested read p50 one at a time ÷ best peer', g.name, m.serialP50Ms / Math.min(...peers.map((p) => p.serialP50Ms)), 1, true);
      add(`nested read q/s at 10 connections ÷ best peer`, g.name, m.nestedPerSecond / Math.max(...peers.map((p) => p.nestedPerSecond)), 1, false);
    }
    if (yoga) add('{ funds } CPU per query ÷ plain yoga', g.name, m.fundsCpuMsPerQuery / yoga.fundsCpuMsPerQuery, 1, true);
    if (apollo) add('{ funds } p99 at 10 connections ÷ Apollo', g.name, m.fundsP99Ms / apollo.fundsP99Ms, 1, true);
  }
  // Not a goal of the issue: whether this checkout is cheaper than the baseline checkout, in the same run.
  const baseline = by('gateway-baseline');
  const compiled = by('gateway-compiled');
  if (baseline && compiled) {
    add('nested read CPU per query ÷ baseline', 'gateway-compiled', compiled.nestedCpuMsPerQuery / baseline.nestedCpuMsPerQuery, 1, true);
    add('{ funds } CPU per query ÷ baseline', 'gateway-compiled', compiled.fundsCpuMsPerQuery / baseline.fundsCpuMsPerQuery, 1, true);
  }
  const compiledTarget = targets.find((t) => t.name === 'gateway-compiled');
  if (compiledTarget)
    add('idle RSS of the compiled production start ÷ 100 MB', 'gateway-compiled', compiledTarget.idleRssBytes / (100 * 1024 * 1024), 1, true);
  return ratios;
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
