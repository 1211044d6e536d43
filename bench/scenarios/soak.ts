import type { BenchContext } from '../context.js';
import { logLevels, sleep } from '../context.js';
import { ErrorTally, graphqlRequest, runLoad, type LoadResult } from '../load.js';
import { closeSubscribers, GIFT_CHANGES, openSubscribers, waitForGauges } from '../subscribers.js';
import { createRequest, type CreateRecord } from './create.js';
import { completeNestedAnswer, createNestedOrders, NESTED } from './nested-read.js';

// 5. Soak: BENCH_SOAK_S seconds of mixed traffic at a steady rate (funds reads, nested reads and creates in
// turn on every connection) while subscribers watch orders whose rewards are redeemed every two seconds.
// Memory after a forced GC at the start and the end; every error counted, whichever layer it shows in.

const FUNDS = `{ funds { balances { currency availableInCents reservedInCents } } }`;
const FUNDS_CHANGED = `subscription { fundsChanged { funds { balances { currency availableInCents reservedInCents } } } }`;
const WATCHED_ORDERS = 5;
const SUBSCRIBERS_PER_ORDER = 40;
const FUNDS_SUBSCRIBERS = 10;
const REDEEM_EVERY_MS = 2_000;
const SAMPLE_EVERY_MS = 5_000;

type Memory = { rssBytes: number; heapUsedBytes: number | null };

export interface SoakResult {
  seconds: number;
  rate: number;
  load: LoadResult;
  subscribers: number;
  redemptions: number;
  events: { expected: number; received: number };
  memory: { start: Memory; end: Memory; samples: (Memory & { atS: number })[] };
  errors: { total: number; http: number; graphql: number; creates: number; subscriptions: number; missingEvents: number; gatewayErrorLogs: number };
  errorSamples: string[];
}

export async function soak(ctx: BenchContext): Promise<SoakResult> {
  const { settings, upstream, gateway, log } = ctx;
  const seconds = settings.BENCH_SOAK_S;
  const prefix = `bench-soak-${Date.now()}`;
  const refs = await createNestedOrders(ctx, `${prefix}-nested`);
  const redemptions = Math.floor((seconds * 1000) / REDEEM_EVERY_MS);
  const watched: { id: string; uuid: string; gifts: string[] }[] = [];
  for (let i = 0; i < WATCHED_ORDERS; i++) {
    const recipients = Math.ceil(redemptions / WATCHED_ORDERS) + 2;
    watched.push(await upstream.createEmailOrder(`${prefix}-watched-${i}`, { recipients, brandCode: 'sbxbooksus' }));
  }
  const giftSubscribers = await openSubscribers(
    gateway.url,
    GIFT_CHANGES,
    Array.from({ length: WATCHED_ORDERS * SUBSCRIBERS_PER_ORDER }, (_, i) => ({ campaign: watched[i % WATCHED_ORDERS]!.id })),
  );
  const fundsSubscribers = await openSubscribers(
    gateway.url,
    FUNDS_CHANGED,
    Array.from({ length: FUNDS_SUBSCRIBERS }, () => ({})),
  );
  const subscriberCount = giftSubscribers.length + fundsSubscribers.length;
  await waitForGauges(gateway, { subscriptions: subscriberCount, pollers: WATCHED_ORDERS + 1 });
  await sleep(2 * settings.BENCH_POLL_INTERVAL_MS);

  await gateway.gc();
  const start = await gateway.memory();
  const logFrom = gateway.lines.length;
  const started = performance.now();
  const samples: SoakResult['memory']['samples'] = [];
  const sampler = setInterval(() => {
    void gateway.memory().then((m) => samples.push({ ...m, atS: Math.round((performance.now() - started) / 1000) }));
  }, SAMPLE_EVERY_MS);

  // Redeem one reward every two seconds, round-robin over the watched orders.
  const redeemed: { order: number; gift: string }[] = [];
  const redeemer = (async () => {
    for (let n = 0; n < redemptions; n++) {
      await sleep(REDEEM_EVERY_MS);
      const order = n % WATCHED_ORDERS;
      const gift = watched[order]!.gifts[Math.floor(n / WATCHED_ORDERS)]!;
      await upstream.redeem(gift);
      redeemed.push({ order, gift });
    }
  })();

  log(`soak: ${seconds} s at ${settings.BENCH_SOAK_RATE} requests/s (funds, nested read, create), ${subscriberCount} subscribers`);
  const reads = new ErrorTally();
  const creates: CreateRecord = { succeeded: [], tally: new ErrorTally() };
  const load = await runLoad({
    url: gateway.url,
    connections: settings.BENCH_CONNECTIONS,
    overallRate: settings.BENCH_SOAK_RATE,
    ignoreCoordinatedOmission: true,
    duration: seconds,
    requests: [
      { ...graphqlRequest(FUNDS), onResponse: (status, body) => void reads.check(status, body) },
      { ...graphqlRequest(NESTED, { refs }), onResponse: (status, body) => void reads.check(status, body, completeNestedAnswer) },
      createRequest(`${prefix}-create`, creates),
    ],
  });
  await redeemer;
  clearInterval(sampler);
  // The last redemption's event needs up to one poll interval plus a poll.
  await sleep(3 * settings.BENCH_POLL_INTERVAL_MS);

  let expected = 0;
  let received = 0;
  giftSubscribers.forEach((s, i) => {
    for (const { order, gift } of redeemed) {
      if (order !== i % WATCHED_ORDERS) continue;
      expected += 1;
      if (s.arrivals.has(gift)) received += 1;
    }
  });
  const subscriptionErrors = [...giftSubscribers, ...fundsSubscribers].reduce((n, s) => n + s.errors.length + (s.ended ? 1 : 0), 0);
  await gateway.gc();
  const end = await gateway.memory();
  const gatewayErrorLogs = logLevels(gateway.lines, logFrom).error;
  await closeSubscribers([...giftSubscribers, ...fundsSubscribers]);

  const errors = {
    http: load.errors - load.non2xx, // non-2xx answers are counted by the tallies below
    graphql: reads.count,
    creates: creates.tally.count,
    subscriptions: subscriptionErrors,
    missingEvents: expected - received,
    gatewayErrorLogs,
  };
  return {
    seconds,
    rate: settings.BENCH_SOAK_RATE,
    load,
    subscribers: subscriberCount,
    redemptions: redeemed.length,
    events: { expected, received },
    memory: { start, end, samples },
    errors: { total: Object.values(errors).reduce((a, b) => a + b, 0), ...errors },
    errorSamples: [...reads.samples, ...creates.tally.samples],
  };
}
