import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeSpans, type ReceivedBody } from '../test/support/otlp.js';
import { sandboxClient } from './clients.js';
import { graphqlRequest, round, runLoad } from './load.js';
import { cpuSeconds, startSandboxProcess } from './processes.js';
import { completeNestedAnswer, createNestedOrders, NESTED } from './scenarios/nested-read.js';
import { AUTH_HEADERS, compiledEntry, productionNodeFlags, startGatewayTarget, type Target } from './targets.js';

// What tracing costs: CPU of the gateway per nested read (10 orders of 20 rewards down to each brand, the
// bench's nested read) with tracing off, and on with every trace sampled (always_on) and exported over
// OTLP/HTTP (protobuf unless TRACING_PROTOCOL says otherwise) to a receiver in this process. Both gateways (the production build, started as
// `npm run start:prod` starts it) run side by side on the same sandbox; each round loads one then the other,
// so a noisy neighbour on a shared machine weighs on both alike. CPU is the gateway process's own (user +
// system, from /proc), divided by the queries of the round. The receiver decodes what it got, to check that no
// span was dropped (a dropped span would be a cheaper one).
// Usage: node --import tsx bench/tracing-cost.ts   (TRACING_ROUNDS, default 5; TRACING_QUERIES per round, default
// 200; TRACING_SAMPLER, default always_on: always_off measures what tracing costs before any span is recorded;
// TRACING_PROTOCOL, default http/protobuf, or http/json)

const ROUNDS = Number(process.env.TRACING_ROUNDS ?? 5);
const QUERIES = Number(process.env.TRACING_QUERIES ?? 200);
const SAMPLER = process.env.TRACING_SAMPLER ?? 'always_on';
const PROTOCOL = process.env.TRACING_PROTOCOL ?? 'http/protobuf';
const CONNECTIONS = 10;
const log = (m: string) => process.stderr.write(`[tracing-cost] ${m}\n`);

const bodies: ReceivedBody[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    bodies.push({ contentType: String(req.headers['content-type'] ?? ''), bytes: Buffer.concat(chunks) });
    const json = String(req.headers['content-type']).includes('json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const entry = compiledEntry(process.env.BENCH_COMPILED_ENTRY, log);
if (!entry) throw new Error('no compiled entry');
const sandbox = await startSandboxProcess({ latencyMs: 20, token: `tracing-${process.pid}`, balanceCents: 2_000_000_000 });
const flags = productionNodeFlags();
const targets: { label: 'off' | 'on'; target: Target }[] = [];
try {
  targets.push({ label: 'off', target: await startGatewayTarget('gateway-compiled', entry, sandbox, flags) });
  targets.push({
    label: 'on',
    target: await startGatewayTarget('gateway-compiled', entry, sandbox, flags, {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_TRACES_SAMPLER: SAMPLER,
      OTEL_EXPORTER_OTLP_PROTOCOL: PROTOCOL,
    }),
  });
  const refs = await createNestedOrders({ upstream: sandboxClient(sandbox) }, `tracing-${Date.now()}`);
  const request = graphqlRequest(NESTED, { refs });
  const query = { ...request, headers: { ...request.headers, ...AUTH_HEADERS } };

  // Every target answers completely before anything is measured (and warms its catalog cache and JIT).
  for (const { label, target } of targets) {
    const res = await fetch(`${target.url}/graphql`, { method: 'POST', headers: query.headers, body: query.body as string });
    if (!completeNestedAnswer(await res.json())) throw new Error(`tracing ${label}: incomplete nested answer`);
    await runLoad({ url: target.url, connections: CONNECTIONS, amount: 50, requests: [query] });
  }

  const perQuery: Record<'off' | 'on', number[]> = { off: [], on: [] };
  let tracedQueries = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which goes first, so neither always runs right after the other's exports.
    for (const { label, target } of round % 2 ? targets : [...targets].reverse()) {
      const before = cpuSeconds(target.pid);
      const result = await runLoad({ url: target.url, connections: CONNECTIONS, amount: QUERIES, requests: [query] });
      const cpuMs = ((cpuSeconds(target.pid) - before) * 1000) / QUERIES;
      if (result.errors > 0) throw new Error(`tracing ${label}: ${result.errors} errors`);
      if (label === 'on') tracedQueries += QUERIES;
      perQuery[label].push(cpuMs);
      log(`round ${round} tracing ${label}: ${round2(cpuMs)} ms CPU per query, ${result.perSecond} q/s, p50 ${result.p50Ms} ms`);
    }
  }
  // The batch processor sends every 5 s: wait for the last batch, then count what arrived.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const spans = bodies.flatMap(decodeSpans);
  const operations = spans.filter((s) => s.name === 'query Nested').length;
  const ratios = perQuery.on.map((on, i) => on / perQuery.off[i]!);
  // Which spans a query costs, most first: where a cut would tell.
  const byName = new Map<string, number>();
  for (const span of spans) byName.set(span.name, (byName.get(span.name) ?? 0) + 1);
  const perQueryByName = Object.fromEntries(
    [...byName].sort((a, b) => b[1] - a[1]).map(([name, count]) => [name, round(count / (tracedQueries + 50 + 1), 2)]),
  );
  const summary = {
    sampler: SAMPLER,
    protocol: PROTOCOL,
    rounds: ROUNDS,
    queriesPerRound: QUERIES,
    connections: CONNECTIONS,
    cpuMsPerQuery: { off: describe(perQuery.off), on: describe(perQuery.on) },
    ratioOnOverOff: describe(ratios),
    exported: {
      spans: spans.length,
      spansPerQuery: round(spans.length / (tracedQueries + 50 + 1), 1),
      operationSpans: operations,
      tracedQueries,
      perQueryByName,
    },
  };
  console.log(JSON.stringify(summary, null, 2));
} finally {
  for (const { target } of targets) await target.stop();
  await sandbox.stop();
  receiver.close();
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function describe(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: round2(sorted[Math.floor(sorted.length / 2)]!), min: round2(sorted[0]!), max: round2(sorted.at(-1)!), values: values.map(round2) };
}
