import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { sandboxClient } from './clients.js';
import { graphqlRequest, runLoad } from './load.js';
import { startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, productionNodeFlags, startGatewayTarget, type Target } from './targets.js';
import { median, spread } from './stats.js';

// A/B of two compiled gateways (e.g. a baseline checkout's dist/main.js against this one's): CPU per query of
// each, both against one sandbox (20 ms), loaded in alternation so a busy moment of the shared machine lands
// on both. Per round and gateway: QUERIES nested reads at 10 connections, SERIAL one at a time, FUNDS `{ funds }`
// at 10 connections; CPU is the scheduler's own account of the process (/proc/…/schedstat, all threads).
// Prints per figure the median [min–max] of the rounds and the median of the per-round ratios B ÷ A.
// AB_ENV_A / AB_ENV_B (JSON objects of environment variables) start either side with settings of its own, so one
// build can be weighed against itself under another setting (entry A and B then the same file).
// Usage: node --import tsx bench/ab-cpu.ts <entry A> <entry B> [ROUNDS=7] [QUERIES=150] [SERIAL=20] [FUNDS=1000]

const [entryA, entryB, ...rest] = process.argv.slice(2);
if (!entryA || !entryB) throw new Error('usage: bench/ab-cpu.ts <entry A> <entry B> [ROUNDS] [QUERIES] [SERIAL] [FUNDS]');
const [rounds, queries, serial, fundsQueries] = [7, 150, 20, 1_000].map((d, i) => Number(rest[i] ?? d)) as [number, number, number, number];
const log = (m: string) => process.stderr.write(`[ab-cpu] ${m}\n`);

function cpuMs(pid: number): number {
  let ms = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ms += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return ms;
}

const sandbox = await startSandboxProcess({ latencyMs: 20, token: `ab-${randomBytes(8).toString('hex')}`, balanceCents: 2_000_000_000 });
const targets: Target[] = [];
try {
  const envs = [process.env.AB_ENV_A, process.env.AB_ENV_B].map((json) => (json ? (JSON.parse(json) as Record<string, string>) : {}));
  for (const [i, entry] of [entryA, entryB].entries())
    targets.push(await startGatewayTarget('gateway-compiled', entry, sandbox, productionNodeFlags(), envs[i]));
  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `ab-${Date.now()}`);
  const auth = (request: ReturnType<typeof graphqlRequest>) => ({ ...request, headers: { ...request.headers, ...AUTH_HEADERS } });
  const nested = auth(graphqlRequest(NESTED, { refs }));
  const funds = auth(graphqlRequest(FUNDS));
  const phases = [
    { name: `nested CPU ms per query, 10 connections (${queries})`, request: nested, connections: 10, amount: queries },
    { name: `nested CPU ms per query, one at a time (${serial})`, request: nested, connections: 1, amount: serial },
    { name: `{ funds } CPU ms per query, 10 connections (${fundsQueries})`, request: funds, connections: 10, amount: fundsQueries },
  ];
  // Warm-up: documents compiled, pools and caches filled.
  for (const target of targets)
    for (const phase of phases) await runLoad({ url: target.url, connections: 10, amount: 30, requests: [phase.request] });
  const cpu = phases.map(() => targets.map(() => [] as number[]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const [p, phase] of phases.entries()) {
      for (const t of order) {
        const target = targets[t]!;
        const before = cpuMs(target.pid);
        const result = await runLoad({ url: target.url, connections: phase.connections, amount: phase.amount, requests: [phase.request] });
        if (result.errors > 0) throw new Error(`${t === 0 ? 'A' : 'B'}: ${result.errors} errors in ${phase.name}`);
        cpu[p]![t]!.push((cpuMs(target.pid) - before) / result.requests);
      }
    }
    log(`round ${round + 1}/${rounds}: ${phases.map((_, p) => `${cpu[p]![0]!.at(-1)!.toFixed(2)} / ${cpu[p]![1]!.at(-1)!.toFixed(2)}`).join(', ')}`);
  }
  console.log(
    `A = ${entryA} ${process.env.AB_ENV_A ?? ''}\nB = ${entryB} ${process.env.AB_ENV_B ?? ''}\n${rounds} alternating rounds, median [min–max]:`,
  );
  for (const [p, phase] of phases.entries()) {
    const [a, b] = cpu[p] as [number[], number[]];
    console.log(`${phase.name}: A ${spread(a, 2)}, B ${spread(b, 2)}, B ÷ A ${median(b.map((x, i) => x / a[i]!)).toFixed(3)}`);
  }
} finally {
  for (const target of targets) await target.stop();
  await sandbox.stop();
}
