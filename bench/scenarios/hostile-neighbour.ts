import { randomBytes } from 'node:crypto';
import type { BenchContext } from '../context.js';
import { percentile, sleep } from '../context.js';
import { ErrorTally, graphqlRequest, round, runLoad, type LoadResult } from '../load.js';
import { startGatewayProcess } from '../processes.js';
import { completeNestedAnswer, createNestedOrders, NESTED } from './nested-read.js';

// Hostile neighbour: one API key floods the widest fan-out query the cost limit lets through, at its rate
// limit, while another key runs the nested read one query at a time. The victim's p50/p99 are compared with
// its solo figures on the same gateway; /health is probed throughout. Runs its own gateway process, with
// two keys and the production rate limit, so the other scenarios keep their single unlimited caller.

const RATE = 20;
/** One full refs list: 100 upstream lookups, the most the default cost limit (25,000) lets one operation make. */
const ALIASES = 1;
const REFS = 100;

export interface HostileNeighbourResult {
  flood: { ratePerSecond: number; lookupsPerOperation: number; load: LoadResult; errorCodes: Record<string, number> };
  victimSolo: LoadResult;
  victimUnderFlood: LoadResult & { graphqlErrors: number; errorSamples: string[] };
  health: { probes: number; failed: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Victim p99 under flood divided by solo p99. */
  p99Ratio: number;
}

export async function hostileNeighbour(ctx: BenchContext): Promise<HostileNeighbourResult> {
  const { settings, sandbox, log } = ctx;
  const keys = { flood: `flood-${randomBytes(12).toString('hex')}`, victim: `victim-${randomBytes(12).toString('hex')}` };
  const gateway = await startGatewayProcess({
    upstream: sandbox,
    pollIntervalMs: settings.BENCH_POLL_INTERVAL_MS,
    cpuProfDir: null,
    env: {
      GATEWAY_API_KEYS: JSON.stringify([
        { name: 'flood', key: keys.flood, scopes: ['rewards:read'] },
        { name: 'victim', key: keys.victim, scopes: ['rewards:read'] },
      ]),
      RATE_LIMIT_PER_SECOND: String(RATE),
      RATE_LIMIT_BURST: String(RATE),
    },
  });
  try {
    const refs = await createNestedOrders(ctx, `bench-hostile-${Date.now()}`);
    const tally = new ErrorTally();
    const victim = (amount: number) =>
      runLoad({
        url: gateway.url,
        connections: 1,
        amount,
        requests: [
          {
            ...graphqlRequest(NESTED, { refs }),
            headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${keys.victim}` },
            onResponse: (status, body) => void tally.check(status, body, completeNestedAnswer),
          },
        ],
      });

    log(`hostile neighbour: victim solo, ${settings.BENCH_NESTED_SERIAL} nested reads`);
    await victim(10); // warm the catalog cache and connections
    const victimSolo = await victim(settings.BENCH_NESTED_SERIAL);
    tally.count = 0;
    tally.samples.length = 0;

    log(`hostile neighbour: flood at ${RATE}/s (${ALIASES * REFS} lookups each) for ${settings.BENCH_DURATION_S} s with the victim reading`);
    const floodRefs = Array.from({ length: REFS }, (_, i) => `flood-${i}`);
    const wide = `query Wide($v: [ID!]!) { ${Array.from({ length: ALIASES }, (_, i) => `a${i}: campaigns(refs: $v) { uuid }`).join(' ')} }`;
    const errorCodes: Record<string, number> = {};
    const flood = (seconds: number) =>
      runLoad({
        url: gateway.url,
        connections: RATE,
        overallRate: RATE,
        duration: seconds,
        requests: [
          {
            ...graphqlRequest(wide, { v: floodRefs }),
            headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${keys.flood}` },
            onResponse: (status, body) => {
              const codes =
                status === 200
                  ? ((JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] }).errors ?? []).map((e) => e.extensions?.code ?? 'UNCODED')
                  : [`HTTP ${status}`];
              for (const code of new Set(codes)) errorCodes[code] = (errorCodes[code] ?? 0) + 1;
            },
          },
        ],
      });
    // A first, unmeasured flood: the refusal paths run for the first time here (module loading, JIT), which
    // a gateway that has been up for a while has long done.
    await flood(2);
    await sleep(2_000);
    for (const code of Object.keys(errorCodes)) delete errorCodes[code];
    const flooding = flood(settings.BENCH_DURATION_S);
    const healthMs: number[] = [];
    let healthFailed = 0;
    let flooded = false;
    void flooding.finally(() => (flooded = true));
    const probing = (async () => {
      while (!flooded) {
        const started = performance.now();
        const ok = await fetch(`${gateway.url}/health`).then(
          (r) => r.ok,
          () => false,
        );
        healthMs.push(performance.now() - started);
        if (!ok) healthFailed += 1;
        await sleep(100);
      }
    })();
    // Let the flood build its queue first, then read as the victim while it lasts.
    await sleep(1_000);
    const victimUnderFlood = await victim(Math.max(10, Math.round(settings.BENCH_NESTED_SERIAL / 2)));
    const floodLoad = await flooding;
    await probing;
    healthMs.sort((a, b) => a - b);
    return {
      flood: { ratePerSecond: RATE, lookupsPerOperation: ALIASES * REFS, load: floodLoad, errorCodes },
      victimSolo,
      victimUnderFlood: { ...victimUnderFlood, graphqlErrors: tally.count, errorSamples: tally.samples },
      health: {
        probes: healthMs.length,
        failed: healthFailed,
        p50Ms: round(percentile(healthMs, 50)),
        p99Ms: round(percentile(healthMs, 99)),
        maxMs: round(healthMs.at(-1) ?? NaN),
      },
      p99Ratio: round(victimUnderFlood.p99Ms / Math.max(1, victimSolo.p99Ms), 2),
    };
  } finally {
    await gateway.stop();
  }
}
