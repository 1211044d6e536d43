// `node --import tsx bench/shield.ts`: the upstream budget and circuit breaker scenarios (issue 24), each
// against a sandbox and a gateway of its own, in this process so the gateway's shield can be read directly.
//
//   outage    viewers reload a 10-order nested view every second; in the middle the reward API answers
//             every request with an HTML 503 for BENCH_OUTAGE_S seconds. Reports the share of reads
//             answered (in full, or stale from the cache), the writes refused as UpstreamUnavailable, what was
//             sent while the circuit was open (goal: probes only) and the time from the upstream's return to
//             the first full answer.
//   capacity  the sandbox's capacity fault at 10/s, no fixed budget: viewers read and one create a second
//             goes in, for BENCH_CAPACITY_S seconds. Reports the share of 429s after the first 10 s (goal
//             ≤ 5 %) and the writes answered.
//
// BENCH_SCENARIOS=outage,capacity picks; BENCH_VIEWERS (default 10), BENCH_OUTAGE_S (60), BENCH_OUTAGE_AROUND_S
// (15, before and after), BENCH_CAPACITY_S (30), BENCH_LATENCY_MS (20). Prints one JSON line per scenario.

import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/ops/logger.js';
import { createMetrics } from '../src/ops/metrics.js';
import { startSandbox } from '../src/sandbox/index.js';
import { createGateway } from '../src/server.js';
import { upstreamClientFromConfig } from '../src/upstream-from-config.js';

const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const VIEWERS = env('BENCH_VIEWERS', 10);
const LATENCY_MS = env('BENCH_LATENCY_MS', 20);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const VIEW = `query View($refs: [ID!]!) {
  campaigns(refs: $refs) { uuid status gifts(first: 20) { edges { node { uuid status deliveryStatus brand { name } } } } }
}`;
const CREATE = `mutation Create($id: ID!) {
  createCampaign(input: { id: $id, priceInCents: 500, reward: { brand: "sbxcoffeeus" }, contacts: [{ email: "ada@example.com" }], subject: "Thanks", message: "For your help." }) {
    __typename
  }
}`;

async function setUp(extraEnv: Record<string, string>) {
  const sandbox = await startSandbox({ latencyMs: LATENCY_MS, balances: { USD: 2_000_000_000 } });
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sandbox.origin}/__sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json() as Promise<any>;
  };
  const refs: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${sandbox.baseUrl}/campaign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `bench-${i}`,
        price_in_cents: 1000,
        brand_codes: ['sbxcoffeeus'],
        contacts: [{ email: `r${i}@example.com`, firstname: 'A', lastname: 'B' }],
        subject: 'Thanks',
        message: 'Thanks.',
      }),
    });
    refs.push(((await res.json()) as any).campaign.uuid);
  }
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', ...extraEnv });
  const logger = createLogger({ level: 'silent' });
  const metrics = createMetrics();
  const client = upstreamClientFromConfig(config, { baseUrl: sandbox.baseUrl, token: sandbox.token }, { onCall: metrics.upstreamCall, logger });
  const gateway = createGateway({ config, client, logger, metrics });
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await gateway.yoga.fetch('http://127.0.0.1/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: any; errors?: { extensions?: { code?: string } }[]; extensions?: { stale?: boolean } };
  };
  // Warm the brand catalog, as a running gateway has it.
  await gql(CREATE, { id: 'warm-up' });
  await control('POST', '/reset');
  return {
    sandbox,
    control,
    refs,
    client,
    gql,
    async close() {
      await gateway.stop(1_000);
      await client.close();
      await sandbox.close();
    },
  };
}

/** Viewers reloading the view once a second until `until()`; every answer goes to `record`. */
async function viewers(
  gql: Awaited<ReturnType<typeof setUp>>['gql'],
  refs: string[],
  until: () => boolean,
  record: (full: boolean, at: number) => void,
) {
  await Promise.all(
    Array.from({ length: VIEWERS }, async (_, v) => {
      await sleep((1000 * v) / VIEWERS);
      while (!until()) {
        const started = Date.now();
        const body = await gql(VIEW, { refs });
        record(!body.errors && (body.data?.campaigns?.length ?? 0) === refs.length, Date.now());
        await sleep(Math.max(0, 1000 - (Date.now() - started)));
      }
    }),
  );
}

async function outage() {
  const around = env('BENCH_OUTAGE_AROUND_S', 15) * 1000;
  const outageMs = env('BENCH_OUTAGE_S', 60) * 1000;
  const run = await setUp({ UPSTREAM_BREAKER_HALF_OPEN_MS: '1000', UPSTREAM_RETRY_BUDGET_MS: '3000', UPSTREAM_TIMEOUT_MS: '2000' });
  const t0 = Date.now();
  const down = { from: t0 + around, to: t0 + around + outageMs };
  const end = down.to + around;
  const during = { reads: 0, answered: 0, writes: 0, refused: 0, otherWrites: 0 };
  let firstFullAfter: number | null = null;
  let sentWhileOpen: Record<string, number> = {};
  let openSince: Record<string, number> | null = null;
  run.client.shield.listen((event) => {
    if (event.type !== 'circuit') return;
    if (event.to === 'open' && !openSince) void run.control('GET', '/stats').then((s) => (openSince = s.requests));
    if (event.to === 'closed' && openSince) {
      const since = openSince;
      openSince = null;
      void run.control('GET', '/stats').then((s) => {
        for (const [route, n] of Object.entries<number>(s.requests)) {
          const delta = n - (since[route] ?? 0);
          if (delta > 0) sentWhileOpen[route] = (sentWhileOpen[route] ?? 0) + delta;
        }
      });
    }
  });
  const faults = (async () => {
    await sleep(down.from - Date.now());
    await run.control('POST', '/faults', { status: 503, rate: 1 });
    await sleep(down.to - Date.now());
    await run.control('DELETE', '/faults');
  })();
  const writes = (async () => {
    for (let i = 0; Date.now() < end; i++) {
      const at = Date.now();
      const body = await run.gql(CREATE, { id: `outage-${i}` });
      if (at >= down.from && at < down.to) {
        during.writes++;
        if (body.data?.createCampaign?.__typename === 'UpstreamUnavailable') during.refused++;
        else during.otherWrites++;
      }
      await sleep(1000);
    }
  })();
  await viewers(
    run.gql,
    run.refs,
    () => Date.now() >= end,
    (full, at) => {
      if (at >= down.from && at < down.to) {
        during.reads++;
        if (full) during.answered++;
      }
      if (at >= down.to && full && firstFullAfter === null) firstFullAfter = at;
    },
  );
  await Promise.all([faults, writes]);
  await sleep(200);
  sentWhileOpen = { ...sentWhileOpen };
  const result = {
    scenario: 'outage',
    viewers: VIEWERS,
    outageS: outageMs / 1000,
    readsDuringOutage: during.reads,
    shareOfReadsAnswered: during.reads ? during.answered / during.reads : null,
    writesDuringOutage: during.writes,
    writesRefusedUpstreamUnavailable: during.refused,
    writesOtherwise: during.otherWrites,
    sentWhileOpen,
    probesOnly: Object.keys(sentWhileOpen).every((route) => route === 'GET /ping'),
    recoverySeconds: firstFullAfter === null ? null : (firstFullAfter - down.to) / 1000,
  };
  await run.close();
  return result;
}

async function capacity() {
  const seconds = env('BENCH_CAPACITY_S', 30);
  const run = await setUp({ UPSTREAM_QUEUE_TIMEOUT_MS: '2000' });
  await run.control('POST', '/capacity', { per_second: 10, burst: 10 });
  const t0 = Date.now();
  const end = t0 + seconds * 1000;
  let writes = 0;
  let created = 0;
  const writing = (async () => {
    for (let i = 0; Date.now() < end; i++) {
      writes++;
      const body = await run.gql(CREATE, { id: `capacity-${i}` });
      if (body.data?.createCampaign?.__typename === 'CreateCampaignPayload') created++;
      await sleep(1000);
    }
  })();
  let reads = 0;
  let full = 0;
  await viewers(
    run.gql,
    run.refs,
    () => Date.now() >= end,
    (ok) => {
      reads++;
      if (ok) full++;
    },
  );
  await writing;
  const { perSecond, throttledPerSecond } = await run.control('GET', '/stats');
  const after = Math.floor(t0 / 1000) + 10;
  const sum = (counts: Record<string, number>) => Object.entries(counts).reduce((n, [s, c]) => (Number(s) >= after ? n + c : n), 0);
  const sent = sum(perSecond);
  const throttled = sum(throttledPerSecond);
  const result = {
    scenario: 'capacity',
    viewers: VIEWERS,
    seconds,
    requestsAfter10s: sent,
    share429After10s: sent ? throttled / sent : null,
    acceptedPerSecondAfter10s: (sent - throttled) / Math.max(1, seconds - 10),
    adaptiveLimit: run.client.shield.state().adaptiveLimit,
    writes,
    writesAnswered: created,
    readsAnsweredInFull: reads ? full / reads : null,
  };
  await run.close();
  return result;
}

const wanted = (process.env.BENCH_SCENARIOS ?? 'outage,capacity').split(',');
for (const [name, scenario] of [
  ['outage', outage],
  ['capacity', capacity],
] as const) {
  if (wanted.includes(name)) console.log(JSON.stringify(await scenario()));
}
