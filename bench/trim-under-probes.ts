import { randomBytes } from 'node:crypto';
import { sandboxClient } from './clients.js';
import { sleep } from './context.js';
import { graphqlRequest, runLoad } from './load.js';
import { startSandboxProcess } from './processes.js';
import { createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget } from './targets.js';
// The heap trim in a deployment's quiet: the compiled gateway (start:prod's flags, HEAP_TRIM_AFTER_MS as given)
// serves 300 nested reads at 10 connections, then gets what a Kubernetes replica gets while no one uses it, a
// readiness probe every 2 s and a Prometheus scrape every 6 s, and prints its young generation's size from
// /metrics at each scrape: it falls once the trim's quiet has passed, probes and scrapes notwithstanding.
// Usage: node --import tsx bench/trim-under-probes.ts [HEAP_TRIM_AFTER_MS=60000] [PROBES=45]

const [afterMs, probes] = [process.argv[2] ?? '60000', Number(process.argv[3] ?? 45)];
if (!/^\d+$/.test(afterMs) || !Number.isInteger(probes) || probes < 1)
  throw new Error('usage: bench/trim-under-probes.ts [HEAP_TRIM_AFTER_MS=60000] [PROBES=45]: whole numbers');
const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, (m) => process.stderr.write(`[trim-under-probes] ${m}\n`));
if (!entry) throw new Error('no compiled entry');
const sandbox = await startSandboxProcess({ latencyMs: 20, token: `p-${randomBytes(8).toString('hex')}`, balanceCents: 2_000_000_000 });
const t = await startGatewayTarget('gateway-compiled', entry, sandbox, productionNodeFlags(), { HEAP_TRIM_AFTER_MS: afterMs });
try {
  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `p-${Date.now()}`);
  const r = graphqlRequest(NESTED, { refs });
  await runLoad({ url: `${t.url}/graphql`, connections: 10, amount: 300, requests: [{ ...r, headers: { ...r.headers, ...AUTH_HEADERS } }] });
  const start = Date.now();
  for (let i = 0; i < probes; i++) {
    await fetch(`${t.url}/ready`).then((res) => res.text());
    if (i % 3 === 0) {
      const m = await (await fetch(`${t.url}/metrics`)).text();
      const newSpace = m.split('\n').find((l) => l.startsWith('nodejs_heap_space_size_total_bytes{space="new"}'));
      console.log(`${((Date.now() - start) / 1000).toFixed(0)} s: ${newSpace}`);
    }
    await sleep(2000);
  }
} finally {
  await t.stop();
  await sandbox.stop();
}
