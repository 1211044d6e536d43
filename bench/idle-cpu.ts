import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sleep } from './context.js';
import { graphqlRequest } from './load.js';
import { runtimeMs, startSandboxProcess } from './processes.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget, startPeer, type Target } from './targets.js';
import { spread } from './stats.js';

// What an idle server costs: CPU time (the scheduler's own account, /proc/…/schedstat) and how often its main thread wakes up (voluntary context switches of that thread: a timer firing is one). Each
// target is started RUNS times (the compiled gateway as `npm run start:prod` starts it, the peers of
// bench/peers/ as the comparison does), answers one `{ funds }`, is left alone for SETTLE_S (keep-alive sockets
// close), then measured over WINDOWS windows of 5 s. Prints per target the median and range over the starts.
// Usage: node --import tsx bench/idle-cpu.ts [RUNS=3] [WINDOWS=6]   (IDLE_TARGETS=gateway,yoga,apollo; IDLE_ENV: a JSON
// object of the gateway's environment on top of the comparison's, e.g. '{"HEAP_TRIM_AFTER_MS":"0"}')

const log = (m: string) => process.stderr.write(`[idle-cpu] ${m}\n`);
const WINDOW_MS = 5_000;
const SETTLE_S = 6;
const runs = Number(process.argv[2] ?? 3);
const windows = Number(process.argv[3] ?? 6);
const targets = (process.env.IDLE_TARGETS ?? 'gateway').split(',');

/** Voluntary context switches of the main thread: how often it went to sleep waiting for something. */
function mainThreadWakeUps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return Number(status.match(/^voluntary_ctxt_switches:\s+(\d+)/m)?.[1] ?? NaN);
}

async function start(name: string, sandbox: Awaited<ReturnType<typeof startSandboxProcess>>): Promise<Target> {
  if (name === 'gateway') {
    const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
    if (!entry) throw new Error('no compiled entry');
    return startGatewayTarget(
      'gateway-compiled',
      entry,
      sandbox,
      productionNodeFlags(),
      JSON.parse(process.env.IDLE_ENV ?? '{}') as Record<string, string>,
    );
  }
  return startPeer(name as 'yoga' | 'apollo', sandbox);
}

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `idle-${randomBytes(8).toString('hex')}`, balanceCents: 1_000_000 });
try {
  for (const name of targets) {
    const cpu: number[] = [];
    const mainCpu: number[] = [];
    const wakeUps: number[] = [];
    for (let run = 0; run < runs; run++) {
      const target = await start(name, sandbox);
      try {
        const request = graphqlRequest(FUNDS);
        const response = await fetch(`${target.url}/graphql`, {
          method: 'POST',
          headers: { ...request.headers, ...AUTH_HEADERS },
          body: request.body,
        });
        if (!response.ok) throw new Error(`${name}: { funds } answered ${response.status}`);
        await response.text();
        await sleep(SETTLE_S * 1_000);
        const [cpu0, wake0] = [runtimeMs(target.pid), mainThreadWakeUps(target.pid)];
        await sleep(windows * WINDOW_MS);
        const cpu1 = runtimeMs(target.pid);
        cpu.push((cpu1.all - cpu0.all) / windows);
        mainCpu.push((cpu1.main - cpu0.main) / windows);
        wakeUps.push((mainThreadWakeUps(target.pid) - wake0) / ((windows * WINDOW_MS) / 1_000));
        log(
          `${name} start ${run + 1}/${runs}: ${cpu.at(-1)!.toFixed(1)} ms CPU per 5 s (main thread ${mainCpu.at(-1)!.toFixed(1)}), ${wakeUps.at(-1)!.toFixed(1)} wake-ups/s`,
        );
      } finally {
        await target.stop();
      }
    }
    console.log(
      `${name}: idle CPU ${spread(cpu, 1)} ms per 5 s (main thread ${spread(mainCpu, 1)}), main thread ${spread(wakeUps, 1)} wake-ups/s ` +
        `(median [min–max] of ${runs} starts, ${windows} × 5 s each)`,
    );
  }
} finally {
  await sandbox.stop();
}
