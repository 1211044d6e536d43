import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { z } from 'zod';

// Every knob of `npm run bench`, from the environment, with the defaults that fit a 2-core machine in
// about a quarter of an hour (BENCH_QUICK=1: about six minutes). Issue 24 asks for 30 s per dashboard viewer
// count and 20 s keeps the whole run near 15 minutes (BENCH_DASHBOARD_S=30 adds about 1.5 minutes); the
// overhead phases are 6 s for the same reason. A typo stops the run with a message rather than measuring the
// wrong thing.

export const SCENARIOS = [
  'compare',
  'dashboard',
  'live-dashboard',
  'outage',
  'capacity',
  'overhead',
  'nested',
  'create',
  'fan-out',
  'soak',
  'hostile',
  'budget-neighbour',
  'cluster',
  'webhooks',
] as const;
export const TARGETS = ['gateway-tsx', 'gateway-compiled', 'gateway-baseline', 'apollo', 'yoga', 'yoga-jit'] as const;
/** The gateway through tsx is a target on request only: production runs the compiled one. */
const DEFAULT_TARGETS = TARGETS.filter((t) => t !== 'gateway-tsx');

const int = (min: number) => z.coerce.number().int().min(min);

const envSchema = z.object({
  /** Fixed delay the sandbox adds before every reward-API answer: the stand-in for the real upstream. */
  BENCH_LATENCY_MS: int(0).default(20),
  /** Concurrent connections of the overhead and nested-read load. */
  BENCH_CONNECTIONS: int(1).default(10),
  /** Seconds of each measured overhead phase (after a 2 s warm-up). */
  BENCH_DURATION_S: int(1).default(6),
  /** Nested reads sent at concurrency 1 (latency) and at BENCH_CONNECTIONS (throughput). */
  BENCH_NESTED_SERIAL: int(1).default(100),
  BENCH_NESTED_CONCURRENT: int(1).default(500),
  /** Orders each nested read names (20 rewards each): a dashboard's size. */
  BENCH_NESTED_ORDERS: int(1).default(10),
  /** Creates and their steady rate per second. */
  BENCH_CREATES: int(1).default(300),
  BENCH_CREATE_RATE: int(1).default(20),
  /** Subscription fan-out: subscribers, orders they spread over, poll interval. */
  BENCH_SUBSCRIBERS: int(1).default(2_000),
  /** Subscriptions sharing one WebSocket (graphql-ws multiplexes); 1 = one socket per subscriber. */
  BENCH_SUBSCRIBERS_PER_SOCKET: int(1).default(1),
  BENCH_ORDERS: int(1).default(20),
  /** Cluster scenario: subscribers on each of its three replicas (spread over BENCH_ORDERS orders). */
  BENCH_CLUSTER_SUBSCRIBERS: int(1).default(700),
  /** Webhooks: endpoints (one order each) on one loopback receiver, and how long the receiver is down. */
  BENCH_WEBHOOK_ENDPOINTS: int(1).default(100),
  BENCH_WEBHOOK_DOWN_S: int(1).default(60),
  /**
   * Cluster scenario: the Redis it runs on: one server, a primary and a replica behind three sentinels, or a
   * six-node Redis Cluster (test/support/redis-topologies.ts); the figures are the same either way.
   */
  BENCH_REDIS: z.enum(['single', 'sentinel', 'cluster']).default('single'),
  BENCH_POLL_INTERVAL_MS: int(10).default(500),
  /** Poll intervals each fan-out cost window lasts. */
  BENCH_INTERVALS: int(2).default(20),
  /** Soak duration, seconds, and its overall HTTP rate (subscriptions come on top). */
  BENCH_SOAK_S: int(5).default(60),
  BENCH_SOAK_RATE: int(1).default(30),
  /** 1: run the gateway with --cpu-prof; profiles land in bench/results/profiles/ (not committed). */
  BENCH_CPU_PROF: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1'),
  /** Which scenarios run, comma-separated; default all (compare first). */
  BENCH_SCENARIOS: z
    .string()
    .default(SCENARIOS.join(','))
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(SCENARIOS)).min(1)),
  /** Comparison: interleaved rounds, and per target and round: seconds of `{ funds }`, nested reads one at a time and at BENCH_CONNECTIONS. */
  BENCH_ROUNDS: int(1).default(5),
  BENCH_COMPARE_FUNDS_S: int(1).default(2),
  BENCH_COMPARE_SERIAL: int(1).default(20),
  BENCH_COMPARE_CONCURRENT: int(1).default(200),
  /** Per target and round: queries naming one order, and queries naming BENCH_WIDE_ORDERS, at BENCH_CONNECTIONS (CPU per upstream call). */
  BENCH_COMPARE_NARROW: int(1).default(100),
  BENCH_COMPARE_WIDE: int(1).default(5),
  BENCH_WIDE_ORDERS: int(2).default(50),
  /** Seconds of quiet at the end of every comparison round before RSS after the load is read (what V8 gives back by then). */
  BENCH_COMPARE_SETTLE_S: int(0).default(15),
  /** Seconds every target of the comparison is left idle (all at once, after start-up) for its idle CPU. */
  BENCH_IDLE_S: int(1).default(5),
  /** Idle subscribers held by the compiled gateway and by a bare yoga + graphql-ws server, for heap per subscriber. */
  BENCH_COMPARE_SUBSCRIBERS: int(1).default(500),
  /** Outage and capacity scenarios: viewers per target (a 10-order view each second), and their durations. */
  BENCH_SHIELD_VIEWERS: int(1).default(10),
  BENCH_OUTAGE_S: int(1).default(60),
  BENCH_OUTAGE_AROUND_S: int(1).default(5),
  BENCH_CAPACITY_S: int(11).default(30),
  /** Which servers the comparison measures, comma-separated; default all but gateway-tsx (gateway-baseline only with BENCH_BASELINE_ENTRY). */
  BENCH_TARGETS: z
    .string()
    .default(DEFAULT_TARGETS.join(','))
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(TARGETS)).min(1)),
  /** Dashboard: seconds each viewer count runs, and the viewer counts (each reloads the view every second). */
  BENCH_DASHBOARD_S: int(2).default(20),
  BENCH_DASHBOARD_VIEWERS: z
    .string()
    .default('1,10,50')
    .transform((s) => s.split(',').map((x) => Number(x.trim())))
    .pipe(z.array(z.number().int().positive()).min(1)),
  /** A compiled gateway entry to use instead of building one (see bench/targets.ts). */
  BENCH_COMPILED_ENTRY: z.string().min(1).optional(),
  /**
   * Another compiled gateway entry (say the previous commit's `dist/main.js` in a second checkout) measured in
   * the same run as `gateway-baseline`: the way to tell whether a change made the gateway faster.
   */
  BENCH_BASELINE_ENTRY: z.string().min(1).optional(),
  /**
   * Environment of the baseline gateway on top of the comparison's, as a JSON object of strings: with
   * BENCH_BASELINE_ENTRY the same file, one build weighed against itself under another setting in the
   * comparison's own rhythm (e.g. `{"HEAP_TRIM_AFTER_MS":"0"}`).
   */
  BENCH_BASELINE_ENV: z
    .string()
    .default('{}')
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'BENCH_BASELINE_ENV must be a JSON object, e.g. {"HEAP_TRIM_AFTER_MS":"0"}' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), z.string())),
});

/** BENCH_QUICK=1: every knob the caller did not set takes a value that makes the whole run about two minutes. */
const QUICK: Record<string, string> = {
  BENCH_ROUNDS: '1',
  BENCH_COMPARE_FUNDS_S: '2',
  BENCH_COMPARE_SERIAL: '10',
  BENCH_COMPARE_CONCURRENT: '40',
  BENCH_DURATION_S: '2',
  BENCH_NESTED_SERIAL: '20',
  BENCH_NESTED_CONCURRENT: '50',
  BENCH_CREATES: '40',
  BENCH_SUBSCRIBERS: '200',
  BENCH_CLUSTER_SUBSCRIBERS: '100',
  BENCH_WEBHOOK_DOWN_S: '10',
  BENCH_INTERVALS: '4',
  BENCH_SOAK_S: '6',
  BENCH_DASHBOARD_S: '5',
  BENCH_COMPARE_NARROW: '20',
  BENCH_COMPARE_WIDE: '2',
  BENCH_IDLE_S: '2',
  BENCH_COMPARE_SETTLE_S: '2',
  BENCH_COMPARE_SUBSCRIBERS: '200',
  BENCH_OUTAGE_S: '10',
  BENCH_OUTAGE_AROUND_S: '5',
  BENCH_CAPACITY_S: '14',
};

export type Settings = z.infer<typeof envSchema>;

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const given = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('BENCH_') && k !== 'BENCH_QUICK' && v !== ''));
  if (env.BENCH_QUICK !== undefined && !['0', '1', ''].includes(env.BENCH_QUICK)) throw new Error('bench: BENCH_QUICK must be 0 or 1');
  const parsed = envSchema.safeParse(env.BENCH_QUICK === '1' ? { ...QUICK, ...given } : given);
  if (!parsed.success) {
    throw new Error(`bench: invalid settings\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  if (Object.keys(parsed.data.BENCH_BASELINE_ENV).length > 0 && !parsed.data.BENCH_BASELINE_ENTRY)
    throw new Error('bench: BENCH_BASELINE_ENV is for the baseline gateway; set BENCH_BASELINE_ENTRY (e.g. dist/main.js) too');
  return parsed.data;
}

export interface Machine {
  /** The commit measured (`git rev-parse --short HEAD`, `+` when the work tree has changes). */
  commit: string;
  cpus: number;
  cpuModel: string;
  node: string;
  platform: string;
  date: string;
}

export function describeMachine(): Machine {
  return {
    commit: commitOf(),
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
  };
}

function commitOf(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+' : ''}`;
  } catch {
    return 'unknown';
  }
}
