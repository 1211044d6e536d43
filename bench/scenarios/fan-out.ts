import { requestDelta, total } from '../clients.js';
import { percentile, sleep, type BenchContext } from '../context.js';
import { round } from '../load.js';
import { cpuSeconds } from '../processes.js';
import { closeSubscribers, GIFT_CHANGES, liveGauges, openSubscribers, waitForGauges } from '../subscribers.js';

// 4. Subscription fan-out: BENCH_SUBSCRIBERS subscribers of giftStatusChanged spread evenly over
// BENCH_ORDERS orders, BENCH_SUBSCRIBERS_PER_SOCKET to a WebSocket (default one each). The upstream must pay per watched order, not per subscriber: the
// requests per poll interval with one subscriber per order are measured first, then with all of them. Then
// one reward of every order is redeemed in the sandbox and the time until each subscriber has the event is
// measured (the poll interval dominates it: a change waits for the next poll). Memory per subscriber is the
// gateway's heap and RSS after a forced GC, with all subscribers against one per order.

const ROUNDS = 5;

export interface FanOutResult {
  subscribers: number;
  orders: number;
  sockets: number;
  pollers: number;
  pollIntervalMs: number;
  intervals: number;
  /**
   * Upstream requests per poll interval as the sandbox counted them, and per poll as the gateway's own
   * counters give them (both counted when they end, so exact), with one subscriber per order, then with all.
   */
  perOrderOnly: { requestsPerInterval: number; requestsPerPoll: number; upstream: Record<string, number> };
  all: { requestsPerInterval: number; requestsPerPoll: number; upstream: Record<string, number> };
  /** redeem sent → event at the subscriber, over ROUNDS redemptions of every order. */
  eventLatency: { samples: number; missing: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Per order and round, first to last subscriber receiving the same event: the cost of the fan-out itself. */
  fanOutSpread: { p50Ms: number; maxMs: number };
  /** Gateway CPU per event delivered to one subscriber, over the redemption rounds, idle polling taken out. */
  gatewayCpuUsPerDelivery: number;
  memory: {
    perSubscriberHeapBytes: number;
    perSubscriberRssBytes: number;
    heapUsedBytes: { none: number | null; perOrder: number | null; all: number | null; afterClose: number | null };
    rssBytes: { none: number; perOrder: number; all: number; afterClose: number };
  };
  subscriberErrors: number;
  afterClose: { subscriptions: number; pollers: number };
}

async function costWindow(ctx: BenchContext, intervals: number) {
  const { upstream, gateway, settings } = ctx;
  const before = { stats: await upstream.stats(), gauges: await liveGauges(gateway) };
  await sleep(intervals * settings.BENCH_POLL_INTERVAL_MS);
  const after = { stats: await upstream.stats(), gauges: await liveGauges(gateway) };
  const delta = requestDelta(before.stats, after.stats);
  const polls = after.gauges.campaignPolls - before.gauges.campaignPolls;
  const calls = after.gauges.upstreamCalls - before.gauges.upstreamCalls;
  return { requestsPerInterval: round(total(delta) / intervals, 2), requestsPerPoll: round(calls / polls, 3), upstream: delta };
}

async function memory(ctx: BenchContext) {
  await ctx.gateway.gc();
  await ctx.gateway.gc();
  return ctx.gateway.memory();
}

export async function fanOut(ctx: BenchContext): Promise<FanOutResult> {
  const { settings, upstream, gateway, log } = ctx;
  const orderCount = settings.BENCH_ORDERS;
  const count = settings.BENCH_SUBSCRIBERS;
  const interval = settings.BENCH_POLL_INTERVAL_MS;
  const prefix = `bench-fanout-${Date.now()}`;

  // Rewards beyond the redeemed ones stay open, so each order's feed keeps polling to the end.
  const orders: { id: string; uuid: string; gifts: string[] }[] = [];
  for (let i = 0; i < orderCount; i++)
    orders.push(await upstream.createEmailOrder(`${prefix}-${i}`, { recipients: ROUNDS + 2, brandCode: 'sbxcoffeeus' }));
  const memNone = await memory(ctx);

  log(`fan-out: ${orderCount} subscribers (one per order), cost over ${settings.BENCH_INTERVALS} polls of ${interval} ms`);
  const variables = (n: number) => Array.from({ length: n }, (_, i) => ({ campaign: orders[i % orderCount]!.uuid }));
  const perSocket = settings.BENCH_SUBSCRIBERS_PER_SOCKET;
  const first = await openSubscribers(gateway.url, GIFT_CHANGES, variables(orderCount), { perSocket });
  await waitForGauges(gateway, { subscriptions: orderCount, pollers: orderCount });
  // Every poller past its baseline, and the jitter has spread the pollers started together.
  await sleep(5 * interval);
  const perOrderOnly = await costWindow(ctx, settings.BENCH_INTERVALS);
  const memPerOrder = await memory(ctx);

  log(`fan-out: ${count - orderCount} more subscribers, ${perSocket} to a WebSocket`);
  const rest = await openSubscribers(gateway.url, GIFT_CHANGES, variables(count - orderCount), { perSocket });
  const subscribers = [...first, ...rest];
  await waitForGauges(gateway, { subscriptions: count, pollers: orderCount });
  const memAll = await memory(ctx);
  const pollers = (await liveGauges(gateway)).pollers;
  const idleCpu = cpuSeconds(gateway.pid);
  const all = await costWindow(ctx, settings.BENCH_INTERVALS);
  const idleCpuPerMs = (cpuSeconds(gateway.pid) - idleCpu) / (settings.BENCH_INTERVALS * interval);

  log(`fan-out: ${ROUNDS} rounds of one redemption per order`);
  const latencies: number[] = [];
  const spreads: number[] = [];
  let missing = 0;
  const roundsStarted = { at: performance.now(), cpu: cpuSeconds(gateway.pid) };
  for (let r = 0; r < ROUNDS; r++) {
    const sentAt = new Map<string, number>();
    await Promise.all(
      orders.map(async (order) => {
        const gift = order.gifts[r]!;
        sentAt.set(gift, performance.now());
        await upstream.redeem(gift);
      }),
    );
    const gifts = orders.map((o) => o.gifts[r]!);
    const deadline = Date.now() + 10 * interval + 5_000;
    const everyoneHasIt = () => subscribers.every((s, i) => s.arrivals.has(gifts[i % orderCount]!));
    while (!everyoneHasIt() && Date.now() < deadline) await sleep(20);
    orders.forEach((order, o) => {
      const gift = gifts[o]!;
      const arrivals = subscribers.filter((_, i) => i % orderCount === o).map((s) => s.arrivals.get(gift));
      const received = arrivals.filter((t): t is number => t !== undefined);
      missing += arrivals.length - received.length;
      for (const t of received) latencies.push(t - sentAt.get(gift)!);
      if (received.length) spreads.push(Math.max(...received) - Math.min(...received));
    });
  }
  const roundsCpu = cpuSeconds(gateway.pid) - roundsStarted.cpu - idleCpuPerMs * (performance.now() - roundsStarted.at);
  latencies.sort((a, b) => a - b);
  spreads.sort((a, b) => a - b);

  const subscriberErrors = subscribers.reduce((n, s) => n + s.errors.length + (s.ended ? 1 : 0), 0);
  await closeSubscribers(subscribers);
  let afterClose = await liveGauges(gateway);
  try {
    await waitForGauges(gateway, { subscriptions: 0, pollers: 0 }, 10_000);
    afterClose = await liveGauges(gateway);
  } catch {
    // reported as found
  }
  const memClosed = await memory(ctx);

  const added = count - orderCount;
  return {
    subscribers: count,
    orders: orderCount,
    sockets: new Set(subscribers.map((s) => s.client)).size,
    pollers,
    pollIntervalMs: interval,
    intervals: settings.BENCH_INTERVALS,
    perOrderOnly,
    all,
    eventLatency: {
      samples: latencies.length,
      missing,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(latencies[latencies.length - 1] ?? NaN),
    },
    fanOutSpread: { p50Ms: round(percentile(spreads, 50)), maxMs: round(spreads[spreads.length - 1] ?? NaN) },
    gatewayCpuUsPerDelivery: Math.round((roundsCpu * 1e6) / latencies.length),
    memory: {
      perSubscriberHeapBytes: Math.round(((memAll.heapUsedBytes ?? NaN) - (memPerOrder.heapUsedBytes ?? NaN)) / added),
      perSubscriberRssBytes: Math.round((memAll.rssBytes - memPerOrder.rssBytes) / added),
      heapUsedBytes: {
        none: memNone.heapUsedBytes,
        perOrder: memPerOrder.heapUsedBytes,
        all: memAll.heapUsedBytes,
        afterClose: memClosed.heapUsedBytes,
      },
      rssBytes: { none: memNone.rssBytes, perOrder: memPerOrder.rssBytes, all: memAll.rssBytes, afterClose: memClosed.rssBytes },
    },
    subscriberErrors,
    afterClose: { subscriptions: afterClose.subscriptions, pollers: afterClose.pollers },
  };
}
