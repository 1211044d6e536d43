import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { graphqlRequest, runLoad } from './load.js';
import { ROOT, startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { AUTH_HEADERS, compiledEntry, startGatewayTarget } from './targets.js';

// Where the nested read's time and the idle process's memory go: the gateway (production start; compiled
// unless PROFILE_TARGET=tsx) under --cpu-prof, a heap snapshot at idle after start (SIGUSR2), then
// PROFILE_QUERIES nested reads at 10 connections; both summarised on stdout, files in bench/results/profiles/.
// Usage: node --import tsx bench/profile.ts

const dir = join(ROOT, 'bench', 'results', 'profiles');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const log = (m: string) => process.stderr.write(`[profile] ${m}\n`);
const queries = Number(process.env.PROFILE_QUERIES ?? 300);
const tsx = process.env.PROFILE_TARGET === 'tsx';

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `profile-${process.pid}`, balanceCents: 2_000_000_000 });
const entry = tsx ? 'src/main.ts' : compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
if (!entry) throw new Error('no compiled entry');
const gateway = await startGatewayTarget(tsx ? 'gateway-tsx' : 'gateway-compiled', entry, sandbox, [
  '--cpu-prof',
  `--cpu-prof-dir=${dir}`,
  '--heapsnapshot-signal=SIGUSR2',
  `--diagnostic-dir=${dir}`,
]);
try {
  log(`idle RSS ${(gateway.idleRssBytes / 1024 / 1024).toFixed(0)} MB; heap snapshot`);
  process.kill(gateway.pid, 'SIGUSR2');
  while (!readdirSync(dir).some((f) => f.endsWith('.heapsnapshot'))) await sleep(200);
  await sleep(2_000); // written synchronously, but give the file a moment to be complete on disk

  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `profile-${Date.now()}`);
  const request = graphqlRequest(NESTED, { refs });
  const nested = { ...request, headers: { ...request.headers, ...AUTH_HEADERS } };
  await runLoad({ url: gateway.url, connections: 10, amount: 30, requests: [nested] });
  log(`${queries} nested reads at 10 connections`);
  const result = await runLoad({ url: gateway.url, connections: 10, amount: queries, requests: [nested] });
  log(`${result.perSecond} q/s, p50 ${result.p50Ms} ms, errors ${result.errors}`);
} finally {
  await gateway.stop();
  await sandbox.stop();
}
const files = readdirSync(dir);
const run = (script: string, file: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), join(dir, file), '30'], { cwd: ROOT, stdio: 'inherit' });
run('heap-summary.ts', files.find((f) => f.endsWith('.heapsnapshot'))!);
run('profile-summary.ts', files.find((f) => f.endsWith('.cpuprofile'))!);
