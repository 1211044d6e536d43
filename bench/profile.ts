import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { graphqlRequest, runLoad } from './load.js';
import { ROOT, runtimeMs, startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, compiledEntry, PEERS, productionNodeFlags, startGatewayTarget, startPeer, type PeerName } from './targets.js';

// Where the nested read's time and the idle process's memory go: the gateway (production start; compiled
// unless PROFILE_TARGET=tsx), once for a heap snapshot at idle after start (SIGUSR2), once under --cpu-prof
// for PROFILE_QUERIES nested reads (PROFILE_QUERY=funds: `{ funds }` reads) at 10 connections (start-up included, a few % of the profile); both summarised on stdout, files in bench/results/profiles/.
// PROFILE_TARGET=yoga-jit (or yoga, apollo) profiles that peer under the same load instead, without the heap
// snapshot: the gateway's profile read beside the best peer's shows which costs are its own.
// Usage: node --import tsx bench/profile.ts

const dir = join(ROOT, 'bench', 'results', 'profiles');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const log = (m: string) => process.stderr.write(`[profile] ${m}\n`);
const queries = Number(process.env.PROFILE_QUERIES ?? 300);
const tsx = process.env.PROFILE_TARGET === 'tsx';
const peer = PEERS.find((name) => name === process.env.PROFILE_TARGET) as PeerName | undefined;
const funds = process.env.PROFILE_QUERY === 'funds';

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `profile-${process.pid}`, balanceCents: 2_000_000_000 });
const entry = tsx ? 'src/main.ts' : compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
if (!entry) throw new Error('no compiled entry');
// Two processes: the heap snapshot's own CPU must not land in the profile of the load.
const flags = tsx ? [] : productionNodeFlags();
const idle = peer
  ? null
  : await startGatewayTarget(tsx ? 'gateway-tsx' : 'gateway-compiled', entry, sandbox, [
      ...flags,
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${dir}`,
    ]);
if (idle)
  try {
    log(`idle RSS ${(idle.idleRssBytes / 1024 / 1024).toFixed(0)} MB; heap snapshot`);
    process.kill(idle.pid, 'SIGUSR2');
    // The file appears when writing starts: wait until its size stops changing.
    for (let last = -1; ; await sleep(1_000)) {
      const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'));
      const size = file ? statSync(join(dir, file)).size : 0;
      if (size > 0 && size === last) break;
      last = size;
    }
  } finally {
    await idle.stop();
  }
const profiling = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
// PROFILE_TRACING=1: the gateway traces every operation (always_on) and exports over OTLP/HTTP to a receiver here
// that takes and drops the spans, to see where tracing's cost goes (bench/tracing-cost.ts measures how much).
const receiver = process.env.PROFILE_TRACING === '1' ? createServer((req, res) => req.resume().on('end', () => res.end())) : null;
if (receiver) await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const tracingEnv: Record<string, string> = receiver
  ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, OTEL_TRACES_SAMPLER: 'always_on' }
  : {};
const gateway = peer
  ? await startPeer(peer, sandbox, 'idle', profiling)
  : await startGatewayTarget(tsx ? 'gateway-tsx' : 'gateway-compiled', entry, sandbox, [...flags, ...profiling], tracingEnv);
try {
  const request = funds
    ? graphqlRequest(FUNDS)
    : graphqlRequest(NESTED, { refs: await createNestedOrders({ upstream: sandboxClient(sandbox) }, `profile-${Date.now()}`) });
  const query = { ...request, headers: { ...request.headers, ...AUTH_HEADERS } };
  await runLoad({ url: gateway.url, connections: 10, amount: 30, requests: [query] });
  log(`${queries} ${funds ? '{ funds } reads' : 'nested reads'} at 10 connections`);
  const cpuBefore = runtimeMs(gateway.pid).all;
  const result = await runLoad({ url: gateway.url, connections: 10, amount: queries, requests: [query] });
  const cpuMs = (runtimeMs(gateway.pid).all - cpuBefore) / queries;
  log(`${result.perSecond} q/s, p50 ${result.p50Ms} ms, errors ${result.errors}, CPU ${cpuMs.toFixed(2)} ms per query (profiler included)`);
} finally {
  await gateway.stop();
  await sandbox.stop();
  receiver?.close();
}
const files = readdirSync(dir);
const run = (script: string, file: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), join(dir, file), '30'], { cwd: ROOT, stdio: 'inherit' });
if (idle)
  run(
    'heap-summary.ts',
    files.find((f) => f.endsWith('.heapsnapshot'))!,
  );
run(
  'profile-summary.ts',
  files.find((f) => f.endsWith('.cpuprofile'))!,
);
