import { randomBytes } from 'node:crypto';
import type { BenchContext } from '../context.js';
import { sleep } from '../context.js';
import { startGatewayProcess } from '../processes.js';

// Budget neighbour (issue 36): a small upstream budget (UPSTREAM_RATE_LIMIT_PER_SECOND=4, burst 4) and one
// read-only key flooding it with four loops of 20-order reads, within its own rate limit, while a shop key
// cancels rewards, creates orders for brands not yet in the catalog cache, and reads one order at a time. The
// shop's writes must all be answered (their own reads go at a write's priority) and its reads get their turn
// among the waiting keys. Runs its own gateway process with the two keys.

const RATE = 4;
const FLOOD_LOOPS = 4;
const FLOOD_REFS = 20;
const BRANDS = ['sbxcoffeeus', 'sbxbooksus', 'sbxcinemaus', 'sbxgroceryus', 'sbxprepaidus'];

export interface BudgetNeighbourResult {
  ratePerSecond: number;
  rounds: number;
  writes: { sent: number; answered: number; outcomes: Record<string, number> };
  shopReads: { sent: number; answered: number; outcomes: Record<string, number> };
  flood: { operations: number; outcomes: Record<string, number> };
  /** Percentages: the shop's writes answered with their payload, its single reads answered with data. */
  writesAnsweredPct: number;
  shopReadsAnsweredPct: number;
}

const CANCEL = 'mutation ($uuid: ID!) { cancelGift(uuid: $uuid) { __typename } }';
const CREATE = `mutation ($id: ID!, $brand: String!) {
  createCampaign(input: { id: $id, priceInCents: 1000, reward: { brand: $brand }, contacts: [{ email: "ada@example.com" }], subject: "Thanks", message: "For your help." }) { __typename }
}`;
const READ = 'query ($ref: ID!) { campaign(ref: $ref) { uuid } }';
const FLOOD = 'query ($refs: [ID!]!) { campaigns(refs: $refs) { uuid } }';

/** What one answer was: the payload's type, `data`, or the first error code. */
type Gql = (query: string, variables: Record<string, unknown>, key: string) => Promise<string>;

function tally(outcomes: Record<string, number>, outcome: string): void {
  outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
}

export async function budgetNeighbour(ctx: BenchContext): Promise<BudgetNeighbourResult> {
  const { settings, sandbox, upstream, log } = ctx;
  const keys = { neighbour: `neighbour-${randomBytes(12).toString('hex')}`, shop: `shop-${randomBytes(12).toString('hex')}` };
  const gateway = await startGatewayProcess({
    upstream: sandbox,
    pollIntervalMs: settings.BENCH_POLL_INTERVAL_MS,
    cpuProfDir: null,
    env: {
      GATEWAY_API_KEYS: JSON.stringify([
        { name: 'neighbour', key: keys.neighbour, scopes: ['rewards:read'] },
        { name: 'shop', key: keys.shop, scopes: ['rewards:read', 'rewards:write'] },
      ]),
      UPSTREAM_RATE_LIMIT_PER_SECOND: String(RATE),
      UPSTREAM_RATE_LIMIT_BURST: String(RATE),
    },
  });
  const gql: Gql = async (query, variables, key) => {
    const res = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
    if (res.status !== 200) return `HTTP ${res.status}`;
    const body = (await res.json()) as {
      data?: Record<string, { __typename?: string } | null> | null;
      errors?: { extensions?: { code?: string } }[];
    };
    if (body.errors?.length) return body.errors[0]!.extensions?.code ?? 'UNCODED';
    const value = Object.values(body.data ?? {})[0];
    return value?.__typename ?? 'data';
  };
  try {
    const rounds = Math.max(2, Math.min(BRANDS.length, Math.round(settings.BENCH_DURATION_S / 4)));
    const order = await upstream.createEmailOrder(`bench-budget-${Date.now()}`, { recipients: rounds, brandCode: 'sbxcoffeeus' });
    const result: BudgetNeighbourResult = {
      ratePerSecond: RATE,
      rounds,
      writes: { sent: 0, answered: 0, outcomes: {} },
      shopReads: { sent: 0, answered: 0, outcomes: {} },
      flood: { operations: 0, outcomes: {} },
      writesAnsweredPct: 0,
      shopReadsAnsweredPct: 0,
    };
    log(
      `budget neighbour: ${FLOOD_LOOPS} loops of ${FLOOD_REFS}-order reads at a budget of ${RATE}/s, the shop writing and reading for ${rounds} rounds`,
    );
    let flooding = true;
    const loops = Array.from({ length: FLOOD_LOOPS }, async (_, loop) => {
      for (let n = 0; flooding; n++) {
        const refs = Array.from({ length: FLOOD_REFS }, (_, i) => `flood-${loop}-${n}-${i}`);
        tally(result.flood.outcomes, await gql(FLOOD, { refs }, keys.neighbour));
        result.flood.operations++;
      }
    });
    // Let the flood fill the budget's queue first.
    await sleep(1_000);
    const stamp = Date.now();
    try {
      for (let i = 0; i < rounds; i++) {
        const writes = [
          await gql(CANCEL, { uuid: order.gifts[i] }, keys.shop),
          await gql(CREATE, { id: `bench-budget-${stamp}-${i}`, brand: BRANDS[i % BRANDS.length] }, keys.shop),
        ];
        for (const [answer, ok] of [
          [writes[0]!, 'GiftPayload'],
          [writes[1]!, 'CreateCampaignPayload'],
        ] as const) {
          result.writes.sent++;
          if (answer === ok) result.writes.answered++;
          tally(result.writes.outcomes, answer);
        }
        for (let r = 0; r < 3; r++) {
          const answer = await gql(READ, { ref: order.id }, keys.shop);
          result.shopReads.sent++;
          if (answer === 'data') result.shopReads.answered++;
          tally(result.shopReads.outcomes, answer);
        }
      }
    } finally {
      flooding = false;
      await Promise.all(loops);
    }
    result.writesAnsweredPct = Math.round((1000 * result.writes.answered) / result.writes.sent) / 10;
    result.shopReadsAnsweredPct = Math.round((1000 * result.shopReads.answered) / result.shopReads.sent) / 10;
    return result;
  } finally {
    await gateway.stop();
  }
}
