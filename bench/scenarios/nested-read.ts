import { gql, requestDelta, total } from '../clients.js';
import type { BenchContext } from '../context.js';
import { ErrorTally, graphqlRequest, round, runLoad, type LoadResult } from '../load.js';
import { cpuSeconds } from '../processes.js';
import { loadSettings } from '../settings.js';

// 2. Nested read: 10 orders (BENCH_NESTED_ORDERS) of 20 rewards each, read in one query down to each reward's brand. The upstream
// cost is counted by the sandbox: ideally 10 GET /campaign + 10 GET /gifts + one GET /brands/:code per brand
// the catalog cache does not hold yet. Latency is compared with two upstream round trips (orders, then
// their rewards; brands come from the cache once warm).

const ORDERS = loadSettings().BENCH_NESTED_ORDERS;
const REWARDS = 20;
const BRANDS = ['sbxcoffeeus', 'sbxbooksus', 'sbxgroceryus'];

export const NESTED = `query Nested($refs: [ID!]!) {
  campaigns(refs: $refs) {
    uuid status
    gifts(first: 20) { edges { node { uuid status deliveryStatus priceInCents recipientEmail brand { name } } } }
  }
}`;

export interface NestedReadResult {
  orders: number;
  rewardsPerOrder: number;
  cold: { upstream: Record<string, number>; measured: number; ideal: number };
  serial: LoadResult & { upstreamPerQuery: number; idealUpstreamPerQuery: number; idealLatencyMs: number; addedP50Ms: number };
  concurrent: LoadResult & { connections: number; upstreamPerQuery: number; gatewayCpuMsPerQuery: number; sandboxCpuMsPerQuery: number };
  graphqlErrors: number;
  errorSamples: string[];
}

/** Orders for nested reads (also used by the soak); refs alternate caller id and uuid, as clients mix them. */
export async function createNestedOrders({ upstream }: Pick<BenchContext, 'upstream'>, prefix: string, count = ORDERS): Promise<string[]> {
  const refs: string[] = [];
  for (let i = 0; i < count; i++) {
    const order = await upstream.createEmailOrder(`${prefix}-${i}`, { recipients: REWARDS, brandCode: BRANDS[i % BRANDS.length]! });
    refs.push(i % 2 === 0 ? order.id : order.uuid);
  }
  return refs;
}

/** A complete answer: every order, each with all its rewards and their brand names. */
export const completeNestedAnswer = completeAnswerOf(ORDERS);

/** The same check for a query naming `orders` orders. */
export function completeAnswerOf(orders: number): (json: any) => boolean {
  return (json) => {
    const campaigns = json.data?.campaigns as { gifts: { edges: { node: { brand: { name: string } | null } }[] } }[] | undefined;
    return (
      campaigns?.length === orders &&
      campaigns.every((c) => c.gifts.edges.length === REWARDS && c.gifts.edges.every((e) => typeof e.node.brand?.name === 'string'))
    );
  };
}

export async function nestedRead(ctx: BenchContext): Promise<NestedReadResult> {
  const { settings, sandbox, upstream, gateway, log } = ctx;
  const refs = await createNestedOrders(ctx, `bench-nested-${Date.now()}`);
  const tally = new ErrorTally();
  const load = (connections: number, amount: number) =>
    runLoad({
      url: gateway.url,
      connections,
      amount,
      requests: [{ ...graphqlRequest(NESTED, { refs }), onResponse: (status, body) => void tally.check(status, body, completeNestedAnswer) }],
    });

  // Cold: the first query also fills the catalog cache with the three brands (no earlier scenario read a brand).
  let before = await upstream.stats();
  const cold = await gql(gateway.url, NESTED, { refs });
  if (cold.errors || !completeNestedAnswer(cold)) throw new Error(`nested read failed: ${JSON.stringify(cold).slice(0, 500)}`);
  const coldDelta = requestDelta(before, await upstream.stats());

  log(
    `nested read: ${settings.BENCH_NESTED_SERIAL} queries one at a time, then ${settings.BENCH_NESTED_CONCURRENT} at ${settings.BENCH_CONNECTIONS} connections`,
  );
  before = await upstream.stats();
  const serial = await load(1, settings.BENCH_NESTED_SERIAL);
  const serialUpstream = total(requestDelta(before, await upstream.stats()));

  before = await upstream.stats();
  const cpuBefore = { gateway: cpuSeconds(gateway.pid), sandbox: cpuSeconds(sandbox.pid) };
  const concurrent = await load(settings.BENCH_CONNECTIONS, settings.BENCH_NESTED_CONCURRENT);
  const cpu = cpuSeconds(gateway.pid) - cpuBefore.gateway;
  const sandboxCpu = cpuSeconds(sandbox.pid) - cpuBefore.sandbox;
  const concurrentUpstream = total(requestDelta(before, await upstream.stats()));

  const idealLatencyMs = 2 * settings.BENCH_LATENCY_MS;
  return {
    orders: ORDERS,
    rewardsPerOrder: REWARDS,
    cold: { upstream: coldDelta, measured: total(coldDelta), ideal: ORDERS + ORDERS + BRANDS.length },
    serial: {
      ...serial,
      upstreamPerQuery: round(serialUpstream / serial.requests, 3),
      idealUpstreamPerQuery: ORDERS + ORDERS,
      idealLatencyMs,
      addedP50Ms: serial.p50Ms - idealLatencyMs,
    },
    concurrent: {
      ...concurrent,
      connections: settings.BENCH_CONNECTIONS,
      upstreamPerQuery: round(concurrentUpstream / concurrent.requests, 3),
      gatewayCpuMsPerQuery: round((cpu * 1000) / concurrent.requests, 2),
      sandboxCpuMsPerQuery: round((sandboxCpu * 1000) / concurrent.requests, 2),
    },
    graphqlErrors: tally.count,
    errorSamples: tally.samples,
  };
}
