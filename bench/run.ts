import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxClient } from './clients.js';
import type { BenchContext } from './context.js';
import { ROOT, startGatewayProcess, startSandboxProcess, type GatewayProcess, type SandboxProcess } from './processes.js';
import { renderGoals } from './goals.js';
import {
  checksOf,
  renderCapacity,
  renderCluster,
  renderCompare,
  renderDashboard,
  renderLiveDashboard,
  renderOutage,
  renderTable,
  renderWebhooks,
  shieldGoals,
  writeResults,
  type BenchResults,
} from './report.js';
import { capacity } from './scenarios/capacity.js';
import { cluster } from './scenarios/cluster.js';
import { compare } from './scenarios/compare.js';
import { create } from './scenarios/create.js';
import { dashboard } from './scenarios/dashboard.js';
import { liveDashboard } from './scenarios/live-dashboard.js';
import { fanOut } from './scenarios/fan-out.js';
import { budgetNeighbour } from './scenarios/budget-neighbour.js';
import { hostileNeighbour } from './scenarios/hostile-neighbour.js';
import { nestedRead } from './scenarios/nested-read.js';
import { outage } from './scenarios/outage.js';
import { overhead } from './scenarios/overhead.js';
import { soak } from './scenarios/soak.js';
import { webhooks } from './scenarios/webhooks.js';
import { describeMachine, loadSettings } from './settings.js';

// `npm run bench`: the sandbox in its own process; first the side-by-side comparison with the peers (its own
// gateway processes, production start), then the gateway alone in its own process for the five scenarios of
// its own; then bench/results/latest.json, bench/RESULTS.md and the tables on stdout. Exits 1 when a check
// fails. BENCH_SCENARIOS picks scenarios, BENCH_QUICK=1 shortens everything (bench/settings.ts).
// `npm run bench -- --profile` is BENCH_CPU_PROF=1: the gateways under --cpu-prof, profiles in bench/results/profiles/.

const args = process.argv.slice(2);
for (const arg of args) if (arg !== '--profile') throw new Error(`bench: unknown argument ${arg} (only --profile)`);
if (args.includes('--profile')) process.env.BENCH_CPU_PROF = '1';

const BENCH_DIR = join(ROOT, 'bench');
/** Far above the longest run (about 15 minutes on 2 cores); only a hung process would reach it. */
const WATCHDOG_MS = 30 * 60_000;
/** Enough for every create of a run, in cents; stays a 32-bit GraphQL Int. */
const BALANCE_CENTS = 2_000_000_000;

const settings = loadSettings();
const machine = describeMachine();
const began = performance.now();
const log = (message: string) => process.stderr.write(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);

let sandbox: SandboxProcess | null = null;
let gateway: GatewayProcess | null = null;
const watchdog = setTimeout(() => {
  log('watchdog: the run took over 30 minutes, stopping');
  void Promise.all([gateway?.stop(), sandbox?.stop()]).finally(() => process.exit(2));
}, WATCHDOG_MS);

try {
  log(`${machine.cpus} CPUs, Node ${machine.node}; upstream latency ${settings.BENCH_LATENCY_MS} ms`);
  sandbox = await startSandboxProcess({
    latencyMs: settings.BENCH_LATENCY_MS,
    token: `bench-${randomBytes(12).toString('hex')}`,
    balanceCents: BALANCE_CENTS,
  });
  const upstream = sandboxClient(sandbox);
  const wanted = new Set(settings.BENCH_SCENARIOS);
  // The comparison starts and stops its own servers; the development gateway is not even running meanwhile.
  const compared = wanted.has('compare') ? await compare({ settings, sandbox, upstream, log }) : undefined;
  // Likewise the dashboard: the gateway with its read cache and the peers, one after the other.
  const dashboarded = wanted.has('dashboard') ? await dashboard({ settings, sandbox, upstream, log }) : undefined;
  // The same view held live by the gateway alone (issue 38), on a gateway of its own.
  const liveDashboarded = wanted.has('live-dashboard') ? await liveDashboard({ settings, sandbox, upstream, log }) : undefined;
  // Outage and capacity: every target at once, each on a sandbox of its own (faults there touch nothing else).
  const outaged = wanted.has('outage') ? await outage({ settings, log }) : undefined;
  const capacitied = wanted.has('capacity') ? await capacity({ settings, log }) : undefined;

  let own: Partial<
    Pick<
      BenchResults,
      'overhead' | 'nestedRead' | 'create' | 'fanOut' | 'soak' | 'hostileNeighbour' | 'budgetNeighbour' | 'cluster' | 'webhooks' | 'gatewayEnv'
    >
  > = {};
  if ([...wanted].some((s) => !['compare', 'dashboard', 'live-dashboard', 'outage', 'capacity'].includes(s))) {
    gateway = await startGatewayProcess({
      upstream: sandbox,
      pollIntervalMs: settings.BENCH_POLL_INTERVAL_MS,
      cpuProfDir: settings.BENCH_CPU_PROF ? join(BENCH_DIR, 'results', 'profiles') : null,
    });
    const ctx: BenchContext = { settings, sandbox, upstream, gateway, log };
    own = {
      // The sandbox token is random per run, but a token has no place in a record.
      gatewayEnv: Object.fromEntries(Object.entries(gateway.env).filter(([name]) => name !== 'REWARD_API_TOKEN')),
      overhead: wanted.has('overhead') ? await overhead(ctx) : undefined,
      nestedRead: wanted.has('nested') ? await nestedRead(ctx) : undefined,
      create: wanted.has('create') ? await create(ctx) : undefined,
      fanOut: wanted.has('fan-out') ? await fanOut(ctx) : undefined,
      soak: wanted.has('soak') ? await soak(ctx) : undefined,
      hostileNeighbour: wanted.has('hostile') ? await hostileNeighbour(ctx) : undefined,
      budgetNeighbour: wanted.has('budget-neighbour') ? await budgetNeighbour(ctx) : undefined,
      cluster: wanted.has('cluster') ? await cluster(ctx) : undefined,
      webhooks: wanted.has('webhooks') ? await webhooks(ctx) : undefined,
    };
  }
  const measured = {
    machine,
    settings,
    compare: compared,
    dashboard: dashboarded,
    liveDashboard: liveDashboarded,
    outage: outaged,
    capacity: capacitied,
    ...own,
  };
  const results: BenchResults = { ...measured, totalSeconds: Math.round((performance.now() - began) / 1000), checks: checksOf(measured) };
  const written = writeResults(BENCH_DIR, results);
  const h = results.hostileNeighbour;
  if (h) {
    process.stdout.write(
      `\nHostile neighbour: victim nested read p50 ${h.victimSolo.p50Ms} → ${h.victimUnderFlood.p50Ms} ms, p99 ${h.victimSolo.p99Ms} → ${h.victimUnderFlood.p99Ms} ms ` +
        `(x${h.p99Ratio}), victim errors ${h.victimUnderFlood.graphqlErrors + h.victimUnderFlood.errors}; /health p99 ${h.health.p99Ms} ms, failed ${h.health.failed}/${h.health.probes}\n`,
    );
  }
  const b = results.budgetNeighbour;
  if (b) {
    process.stdout.write(
      `\nBudget neighbour (${b.ratePerSecond}/s, ${b.rounds} rounds): the other key's writes answered ${b.writesAnsweredPct} % ` +
        `${JSON.stringify(b.writes.outcomes)}, its reads ${b.shopReadsAnsweredPct} % ${JSON.stringify(b.shopReads.outcomes)}; ` +
        `neighbour ${b.flood.operations} operations ${JSON.stringify(b.flood.outcomes)}\n`,
    );
  }
  if (results.cluster) process.stdout.write(`\nCluster:\n${renderCluster(results.cluster)}\n`);
  if (results.webhooks) process.stdout.write(`\nWebhooks:\n${renderWebhooks(results.webhooks)}\n`);
  if (results.dashboard) process.stdout.write(`\n${renderDashboard(results.dashboard)}\n`);
  if (results.liveDashboard) process.stdout.write(`\n${renderLiveDashboard(results.liveDashboard)}\n`);
  if (results.outage) process.stdout.write(`\n${renderOutage(results.outage)}\n`);
  if (results.capacity) process.stdout.write(`\n${renderCapacity(results.capacity)}\n`);
  if (results.dashboard || results.outage || results.capacity) process.stdout.write(`\nGoals of issue 24:\n${renderGoals(shieldGoals(results))}\n`);
  const profiles = results.compare?.profileDir;
  if (profiles && existsSync(profiles)) {
    // Written by each gateway as it stopped; where its CPU went, by function and by package.
    for (const file of readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'))) {
      process.stdout.write(`\nCPU profile of a compared gateway: ${join(profiles, file)}\n`);
      spawnSync(process.execPath, ['--import', 'tsx', join(BENCH_DIR, 'profile-summary.ts'), join(profiles, file), '30'], {
        cwd: ROOT,
        stdio: 'inherit',
      });
    }
  }
  process.stdout.write(
    `\n${results.compare ? renderCompare(results.compare, results.machine) + '\n\n' : ''}${renderTable(results)}\n\n${results.checks.map((c) => `${c.ok ? 'pass' : 'FAIL'}  ${c.name}`).join('\n')}\n`,
  );
  log(`wrote ${written}`);
  process.exitCode = results.checks.every((c) => c.ok) ? 0 : 1;
} catch (error) {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await gateway?.stop();
  await sandbox?.stop();
  if (gateway) writeFileSync(join(BENCH_DIR, 'results', 'gateway.log'), gateway.lines.join('\n') + '\n');
  clearTimeout(watchdog);
}
