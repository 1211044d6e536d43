import { requestDelta, total } from '../clients.js';
import type { BenchContext } from '../context.js';
import { ErrorTally, graphqlRequest, round, runLoad, type LoadResult } from '../load.js';
import { cpuSeconds } from '../processes.js';

// 1. Overhead: `{ funds { ... } }` through the gateway against the same REST call sent straight to the
// sandbox, at the same concurrency. The difference is what the gateway adds to one upstream round trip. At
// BENCH_CONNECTIONS it includes queueing for the two cores the gateway shares with the sandbox and the load
// generator; the same pair at one connection shows the unloaded cost.

export const FUNDS = `{ funds { balances { currency availableInCents pendingInCents reservedInCents } } }`;

export interface OverheadResult {
  connections: number;
  direct: LoadResult;
  gateway: LoadResult;
  addedP50Ms: number;
  addedP99Ms: number;
  /** The same comparison one request at a time (4 s each). */
  serial: { direct: LoadResult; gateway: LoadResult; addedP50Ms: number; addedP99Ms: number };
  /** Gateway CPU per query: what bounds its throughput once the upstream is fast enough. */
  gatewayCpuMsPerQuery: number;
  /** The sandbox shares the machine's cores: its CPU per query is what the gateway cannot have. */
  sandboxCpuMsPerQuery: number;
  upstreamRequestsPerQuery: number;
  graphqlErrors: number;
}

export async function overhead({ settings, sandbox, upstream, gateway, log }: BenchContext): Promise<OverheadResult> {
  const connections = settings.BENCH_CONNECTIONS;
  const duration = settings.BENCH_DURATION_S;
  const direct = {
    url: `${sandbox.baseUrl}/funds`,
    headers: { authorization: `Bearer ${sandbox.token}`, 'accept-encoding': 'identity' },
    connections,
  };
  const tally = new ErrorTally();
  const viaGateway = {
    url: gateway.url,
    connections,
    requests: [{ ...graphqlRequest(FUNDS), onResponse: (status: number, body: string) => void tally.check(status, body) }],
  };

  log(`overhead: warm-up, then ${duration} s direct and ${duration} s through the gateway at ${connections} connections`);
  await runLoad({ ...direct, duration: 2 });
  await runLoad({ ...viaGateway, duration: 2 });
  tally.count = 0;

  const directResult = await runLoad({ ...direct, duration });
  const before = await upstream.stats();
  const cpuBefore = { gateway: cpuSeconds(gateway.pid), sandbox: cpuSeconds(sandbox.pid) };
  const gatewayResult = await runLoad({ ...viaGateway, duration });
  const cpu = cpuSeconds(gateway.pid) - cpuBefore.gateway;
  const sandboxCpu = cpuSeconds(sandbox.pid) - cpuBefore.sandbox;
  const upstreamRequests = total(requestDelta(before, await upstream.stats()));

  const serialDirect = await runLoad({ ...direct, connections: 1, duration: 4 });
  const serialGateway = await runLoad({ ...viaGateway, connections: 1, duration: 4 });

  return {
    connections,
    direct: directResult,
    gateway: gatewayResult,
    addedP50Ms: gatewayResult.p50Ms - directResult.p50Ms,
    addedP99Ms: gatewayResult.p99Ms - directResult.p99Ms,
    serial: {
      direct: serialDirect,
      gateway: serialGateway,
      addedP50Ms: serialGateway.p50Ms - serialDirect.p50Ms,
      addedP99Ms: serialGateway.p99Ms - serialDirect.p99Ms,
    },
    gatewayCpuMsPerQuery: round((cpu * 1000) / gatewayResult.sent, 2),
    sandboxCpuMsPerQuery: round((sandboxCpu * 1000) / gatewayResult.sent, 2),
    // Queries still in flight when the timed run ended reached the upstream too.
    upstreamRequestsPerQuery: round(upstreamRequests / gatewayResult.sent, 3),
    graphqlErrors: tally.count,
  };
}
