import type { Request } from 'autocannon';
import { requestDelta, type FaultRule } from '../clients.js';
import type { BenchContext } from '../context.js';
import { logLevels } from '../context.js';
import { ErrorTally, graphqlRequest, runLoad, type LoadResult } from '../load.js';

// 3. Create: createCampaign at a steady rate, each with its own idempotency id, while the upstream fails
// 10% of POST /campaign with a 503 before processing and a further share after processing (the order exists
// but the answer is lost). Every create must succeed, and the sandbox must have created each order once.

const CREATE = `mutation Create($input: CreateCampaignInput!) {
  createCampaign(input: $input) {
    __typename
    ... on CreateCampaignPayload { funding campaign { id uuid status } }
    ... on Error { message }
  }
}`;

export const FAULTS: FaultRule[] = [
  { route: 'POST /campaign', status: 503, rate: 0.1 },
  { route: 'POST /campaign', status: 503, rate: 0.03, after: true },
];

/** What a run of creates sent and got back. */
export interface CreateRecord {
  succeeded: string[];
  tally: ErrorTally;
}

/** A createCampaign request with a fresh id each time autocannon builds it; successes are recorded by id. */
export function createRequest(prefix: string, record: CreateRecord): Request {
  let sequence = 0;
  return {
    ...graphqlRequest(CREATE),
    setupRequest(request, context) {
      const id = `${prefix}-${(sequence += 1)}`;
      context.id = id;
      const input = {
        id,
        priceInCents: 1000,
        reward: { brand: 'sbxcoffeeus' },
        contacts: [{ email: 'bench@example.com', firstName: 'Bench' }],
        subject: 'Benchmark',
        message: 'A benchmark reward.',
      };
      return { ...request, body: JSON.stringify({ query: CREATE, variables: { input } }) };
    },
    onResponse(status, body, context) {
      const created = (json: any) =>
        json.data.createCampaign?.__typename === 'CreateCampaignPayload' && json.data.createCampaign.campaign.id === context.id;
      if (record.tally.check(status, body, created)) record.succeeded.push(context.id as string);
    },
  };
}

export interface CreateResult {
  rate: number;
  sent: number;
  succeeded: number;
  successRate: number;
  load: LoadResult;
  faults: FaultRule[];
  upstream: { postCampaign: number; getCampaign: number; retries: number };
  ordersCreated: number;
  duplicateOrders: number;
  /** Creates reported successful whose order the sandbox does not have. */
  lostOrders: number;
  gatewayLog: { warn: number; error: number };
  errorSamples: string[];
}

export async function create({ settings, upstream, gateway, log }: BenchContext): Promise<CreateResult> {
  const rate = settings.BENCH_CREATE_RATE;
  const amount = settings.BENCH_CREATES;
  const prefix = `bench-create-${Date.now()}`;
  const record: CreateRecord = { succeeded: [], tally: new ErrorTally() };
  for (const rule of FAULTS) await upstream.fault(rule);
  log(`create: ${amount} createCampaign at ${rate}/s with injected 503s on POST /campaign`);
  const logFrom = gateway.lines.length;
  const before = await upstream.stats();
  // One connection per request a second, so a create waiting out its retries does not hold the rate back.
  // Latencies as measured: autocannon 8's coordinated-omission correction assumes an interval of 1/rate ms
  // (it should be 1000/rate), which would fill the histogram with made-up samples.
  const load = await runLoad({
    url: gateway.url,
    connections: rate,
    overallRate: rate,
    ignoreCoordinatedOmission: true,
    amount,
    requests: [createRequest(prefix, record)],
  });
  await upstream.clearFaults();
  const after = await upstream.stats();

  const delta = requestDelta(before, after);
  const ours = Object.entries(after.creates).filter(([id]) => id.startsWith(prefix));
  const created = new Set(ours.map(([id]) => id));
  // Every create sent got an answer (counted as success or error) or a timeout / connection error.
  const sent = record.succeeded.length + record.tally.count + (load.errors - load.non2xx);
  return {
    rate,
    sent,
    succeeded: record.succeeded.length,
    successRate: record.succeeded.length / sent,
    load,
    faults: FAULTS,
    upstream: {
      postCampaign: delta['POST /campaign'] ?? 0,
      getCampaign: delta['GET /campaign/:id'] ?? 0,
      retries: (delta['POST /campaign'] ?? 0) - sent,
    },
    ordersCreated: created.size,
    duplicateOrders: ours.filter(([, n]) => n > 1).length,
    lostOrders: record.succeeded.filter((id) => !created.has(id)).length,
    gatewayLog: logLevels(gateway.lines, logFrom),
    errorSamples: record.tally.samples,
  };
}
