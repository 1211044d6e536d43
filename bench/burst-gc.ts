import { randomBytes } from 'node:crypto';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { graphqlRequest, runLoad } from './load.js';
import { runtimeMs, startSandboxProcess, type SandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { FUNDS } from './scenarios/overhead.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget, type Target } from './targets.js';
import { tallyGcLines } from './gc-trace.js';

// What a burst costs after a quiet spell, phase by phase, with the heap trim (src/ops/heap-trim.ts) at its setting
// and off: two compiled gateways (start:prod's flags and --trace-gc-nvp) against one sandbox (20 ms), each in turn
// left quiet for QUIET_S seconds (75 by default: past the trim's minute), then loaded as a round of the comparison
// loads it: 800 `{ funds }` at 10 connections, 20 nested reads one at a time, 200 at 10 connections. Per phase:
// CPU per query (the scheduler's account, all threads) and V8's collections in it (scavenges, full ones, their
// pauses, what was promoted).
// HEAP_TRIM_AFTER_MS in the environment sets the first gateway's (e.g. 5000, with QUIET_S 20: trimmed before every
// burst, as the first version of the trim did after any 6 s lull).
// Usage: node --import tsx bench/burst-gc.ts [ROUNDS=4] [QUIET_S=75]

const [rounds, quietS] = [4, 75].map((d, i) => Number(process.argv[2 + i] ?? d)) as [number, number];
if (![rounds, quietS].every((n) => Number.isInteger(n) && n > 0)) throw new Error('usage: bench/burst-gc.ts [ROUNDS=4] [QUIET_S=75]: whole numbers');
const log = (m: string) => process.stderr.write(`[burst-gc] ${m}\n`);
const targets: { label: string; t: Target }[] = [];
let sandbox: SandboxProcess | undefined;
try {
  sandbox = await startSandboxProcess({ latencyMs: 20, token: `b-${randomBytes(8).toString('hex')}`, balanceCents: 2_000_000_000 });
  const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
  if (!entry) throw new Error('no compiled entry');
  const flags = [...productionNodeFlags(), '--trace-gc-nvp'];
  const trimAfter = process.env.HEAP_TRIM_AFTER_MS;
  targets.push({
    label: trimAfter ? `trim after ${trimAfter} ms` : 'trim at its default',
    t: await startGatewayTarget('gateway-compiled', entry, sandbox, flags, trimAfter ? { HEAP_TRIM_AFTER_MS: trimAfter } : {}),
  });
  targets.push({ label: 'trim off', t: await startGatewayTarget('gateway-compiled', entry, sandbox, flags, { HEAP_TRIM_AFTER_MS: '0' }) });
  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `b-${Date.now()}`);
  const withAuth = (r: ReturnType<typeof graphqlRequest>) => ({ ...r, headers: { ...r.headers, ...AUTH_HEADERS } });
  const nested = withAuth(graphqlRequest(NESTED, { refs }));
  const funds = withAuth(graphqlRequest(FUNDS));
  for (let round = 0; round < rounds; round++) {
    for (const { label, t } of round % 2 ? [...targets].reverse() : targets) {
      await sleep(quietS * 1000);
      const phases: [string, () => Promise<unknown>, number][] = [
        ['funds', () => runLoad({ url: `${t.url}/graphql`, connections: 10, amount: 800, requests: [funds] }), 800],
        ['serial', () => runLoad({ url: `${t.url}/graphql`, connections: 1, amount: 20, requests: [nested] }), 20],
        ['10 conns', () => runLoad({ url: `${t.url}/graphql`, connections: 10, amount: 200, requests: [nested] }), 200],
      ];
      const out: string[] = [];
      for (const [name, run, n] of phases) {
        const from = t.lines.length;
        const cpu = runtimeMs(t.pid).all;
        await run();
        const ms = (runtimeMs(t.pid).all - cpu) / n;
        // The phase's last trace lines may still be in the pipe.
        await sleep(200);
        // V8 prints a line of name=value pairs per collection on stdout.
        const g = tallyGcLines(t.lines.slice(from));
        out.push(
          `${name} ${ms.toFixed(2)} ms/q (s ${g.scavenges}, full ${g.fullGcs}, pause ${g.pauseMs.toFixed(0)} ms, promoted ${g.promotedKb.toFixed(0)} KB)`,
        );
      }
      console.log(`round ${round + 1}, ${label}: ${out.join(' | ')}`);
    }
  }
} finally {
  for (const { t } of targets) await t.stop();
  await sandbox?.stop();
}
