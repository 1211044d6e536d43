import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { graphqlRequest, runLoad } from './load.js';
import { ROOT, startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { AUTH_HEADERS, compiledEntry, PEERS, productionNodeFlags, startGatewayTarget, startPeer, type PeerName } from './targets.js';

// Where a nested read's promises or bytes come from, per read: the compiled gateway as start:prod starts it
// (its source maps name src/ files; SITES_TARGET=tsx: through tsx; or a peer: yoga, yoga-jit, apollo) with a hook preloaded
// (bench/hooks/), warmed up at 10 connections, then SITES_QUERIES nested reads one at a time, counted.
// SITES=promises (default): every promise by the site that made it (on Node 20, AsyncLocalStorage, which
// tracing uses, runs a hook on each). SITES=allocations: bytes allocated by site, collected objects included.
// SITES=promoted: the bytes no scavenge collected (promoted to the old generation), the reads at 10 connections.
// Usage: node --import tsx bench/sites.ts   (SITES_QUERIES, default 50; SITES_TOP, default 40)

const kind = process.env.SITES === 'allocations' || process.env.SITES === 'promoted' ? process.env.SITES : 'promises';
const queries = Number(process.env.SITES_QUERIES ?? 50);
const top = Number(process.env.SITES_TOP ?? 40);
const peer = PEERS.find((name) => name === process.env.SITES_TARGET) as PeerName | undefined;
const tsx = process.env.SITES_TARGET === 'tsx';
const hookFile = pathToFileURL(join(ROOT, 'bench', 'hooks', kind === 'promises' ? 'promise-sites.mjs' : 'allocation-sites.mjs'));
if (kind === 'promoted') hookFile.search = '?promoted';
const hook = ['--import', hookFile.href];
// One read at a time promotes almost nothing (bench/gc.ts): what is promoted shows under concurrency.
const connections = kind === 'promoted' ? 10 : 1;
const log = (m: string) => process.stderr.write(`[sites] ${m}\n`);

// The entry first: a failed build must not leave a sandbox running.
const entry = peer ? null : tsx ? 'src/main.ts' : compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
if (!peer && !entry) throw new Error('no compiled entry');
const sandbox = await startSandboxProcess({ latencyMs: 20, token: `sites-${process.pid}`, balanceCents: 2_000_000_000 });
const target = await (
  peer
    ? startPeer(peer, sandbox, 'idle', hook)
    : startGatewayTarget(tsx ? 'gateway-tsx' : 'gateway-compiled', entry!, sandbox, [...(tsx ? [] : productionNodeFlags()), ...hook])
).catch(async (error: unknown) => {
  await sandbox.stop();
  throw error;
});
// The hook writes what it counted here, named by its process.
const file = join(tmpdir(), `sites-${target.pid}.json`);
try {
  const request = graphqlRequest(NESTED, { refs: await createNestedOrders({ upstream: sandboxClient(sandbox) }, `sites-${Date.now()}`) });
  const query = { ...request, headers: { ...request.headers, ...AUTH_HEADERS } };
  await runLoad({ url: target.url, connections: 10, amount: 30, requests: [query] });
  process.kill(target.pid, 'SIGWINCH');
  await sleep(200);
  const result = await runLoad({ url: target.url, connections, amount: queries, requests: [query] });
  if (result.errors > 0) throw new Error(`${result.errors} errors`);
  process.kill(target.pid, 'SIGUSR2');
  for (let i = 0; i < 50; i++) {
    await sleep(100);
    try {
      readFileSync(file);
      break;
    } catch {
      // not written yet
    }
  }
  const { total, sites } = JSON.parse(readFileSync(file, 'utf8')) as { total: number; sites: [string, number][] };
  const unit = kind === 'promises' ? (n: number) => (n / queries).toFixed(1) : (n: number) => `${(n / queries / 1024).toFixed(1)} KB`;
  const what = { promises: 'promises', allocations: 'allocated', promoted: 'promoted' }[kind];
  console.log(
    `${target.name}: ${unit(total)} ${what} per nested read (${queries} reads, ${connections === 1 ? 'one at a time' : `${connections} connections`})`,
  );
  for (const [site, n] of sites.slice(0, top)) console.log(`${unit(n).padStart(10)}  ${site}`);
} finally {
  rmSync(file, { force: true });
  await target.stop();
  await sandbox.stop();
}
