import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { requestDelta, total } from '../clients.js';
import { percentile, sleep, type BenchContext } from '../context.js';
import { round } from '../load.js';
import { freePort, metricValue, startGatewayProcess, type GatewayProcess } from '../processes.js';
import { closeSubscribers, GIFT_CHANGES, openSubscribers, waitForGauges, type Subscriber } from '../subscribers.js';
import { startClusterTopology, startSentinelTopology } from '../../test/support/redis-topologies.js';

// Cluster mode: a Redis of the scenario's own (BENCH_REDIS: one redis-server, Sentinel or a Redis Cluster; no
// persistence) and three gateway processes on it, BENCH_CLUSTER_SUBSCRIBERS subscribers each spread over BENCH_ORDERS orders. Measured: the upstream's
// requests per poll interval against the single-node gateway watching the same orders (one poller per order
// across the cluster means they should match); redeem → event latency at every subscriber; Redis commands per
// event (INFO stats total_commands_processed over the redemption rounds, idle traffic taken out); and
// failover: kill -9 the replica leading the most keys, redeem one reward of every order at once, time until
// the event reaches the surviving subscribers (slowest order: one whose poller was on the dead replica).

const REPLICAS = 3;
const ROUNDS = 3;

export interface ClusterResult {
  /** BENCH_REDIS: the form of Redis the replicas ran on. */
  redisForm: 'single' | 'sentinel' | 'cluster';
  replicas: number;
  subscribersPerReplica: number;
  orders: number;
  pollIntervalMs: number;
  leaseMs: number;
  /** Upstream requests per poll interval (sandbox counts): the single-node gateway, then the cluster. */
  singleNode: { requestsPerInterval: number; upstream: Record<string, number> };
  cluster: { requestsPerInterval: number; upstream: Record<string, number> };
  /** Cluster ÷ single node: 1 when the cluster polls each order once. */
  costRatio: number;
  eventLatency: { samples: number; missing: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Idle: nothing changes; per watched order too (the goal: at most 4 commands per order per interval). */
  redis: {
    commandsPerEvent: number;
    commandsPerDelivery: number;
    idleCommandsPerSecond: number;
    idleCommandsPerSecondPerOrder: number;
    idleCommandsPerOrderPerInterval: number;
  };
  failover: { leaderKeys: number; killToFirstEventMs: number; killToLastOrderMs: number; missing: number; takeovers: number };
  subscriberErrors: number;
}

interface BenchRedis {
  /** What the replicas are given to use it. */
  env: Record<string, string>;
  /** Every primary, where commands are counted (a replica's counts repeat its primary's). */
  primaries(): Promise<Redis[]>;
  stop(): Promise<void>;
}

async function startBenchRedis(form: ClusterResult['redisForm']): Promise<BenchRedis> {
  if (form === 'single') {
    const server = await startRedis();
    const client = new Redis(server.url);
    return {
      env: { REDIS_URL: server.url },
      primaries: async () => [client],
      async stop() {
        client.disconnect();
        await server.stop();
      },
    };
  }
  const topology = form === 'sentinel' ? await startSentinelTopology() : await startClusterTopology();
  const clients = new Map<string, Redis>();
  return {
    env: topology.env,
    async primaries() {
      return (await topology.primaries()).map((address) => {
        const [host, port] = address.split(':');
        if (!clients.has(address)) clients.set(address, new Redis({ host, port: Number(port) }));
        return clients.get(address)!;
      });
    },
    async stop() {
      for (const client of clients.values()) client.disconnect();
      await topology.stop();
    },
  };
}

async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: `redis://127.0.0.1:${port}/0`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Commands every primary has processed: the whole cluster's, whatever the form. */
async function commandsProcessed(redis: BenchRedis): Promise<number> {
  const counts = await Promise.all(
    (await redis.primaries()).map(async (p) => Number(/total_commands_processed:(\d+)/.exec(await p.info('stats'))?.[1] ?? NaN)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function upstreamPerInterval(ctx: BenchContext, intervals: number) {
  const before = await ctx.upstream.stats();
  await sleep(intervals * ctx.settings.BENCH_POLL_INTERVAL_MS);
  const delta = requestDelta(before, await ctx.upstream.stats());
  return { requestsPerInterval: round(total(delta) / intervals, 2), upstream: delta };
}

/** Waits until every subscriber has the change of its order's gift; returns arrivals as ms after `sentAt`. */
async function arrivals(subscribers: { s: Subscriber; order: number }[], gifts: string[], sentAt: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!subscribers.every(({ s, order }) => s.arrivals.has(gifts[order]!)) && Date.now() < deadline) await sleep(10);
  const got = subscribers.map(({ s, order }) => s.arrivals.get(gifts[order]!));
  const received = got.filter((t): t is number => t !== undefined).map((t) => t - sentAt);
  return { received, missing: got.length - received.length };
}

export async function cluster(ctx: BenchContext): Promise<ClusterResult> {
  const { settings, upstream, sandbox, log } = ctx;
  const orderCount = settings.BENCH_ORDERS;
  const perReplica = settings.BENCH_CLUSTER_SUBSCRIBERS;
  const interval = settings.BENCH_POLL_INTERVAL_MS;
  const leaseMs = 3 * interval;
  const prefix = `bench-cluster-${Date.now()}`;
  const orders: { uuid: string; gifts: string[] }[] = [];
  // Two rewards beyond the redeemed ones stay open, so every order keeps its poller to the end.
  for (let i = 0; i < orderCount; i++)
    orders.push(await upstream.createEmailOrder(`${prefix}-${i}`, { recipients: ROUNDS + 3, brandCode: 'sbxcoffeeus' }));
  const variables = Array.from({ length: orderCount }, (_, i) => ({ campaign: orders[i]!.uuid }));

  log(`cluster: single node, one subscriber per order, cost over ${settings.BENCH_INTERVALS} intervals`);
  const single = await openSubscribers(ctx.gateway.url, GIFT_CHANGES, variables);
  await waitForGauges(ctx.gateway, { subscriptions: orderCount, pollers: orderCount });
  await sleep(5 * interval);
  const singleNode = await upstreamPerInterval(ctx, settings.BENCH_INTERVALS);
  await closeSubscribers(single);
  await waitForGauges(ctx.gateway, { subscriptions: 0, pollers: 0 });

  const redis = await startBenchRedis(settings.BENCH_REDIS);
  const replicas: GatewayProcess[] = [];
  const subscribers: { s: Subscriber; order: number; replica: number }[] = [];
  try {
    log(`cluster: ${REPLICAS} replicas on redis (${settings.BENCH_REDIS}), ${perReplica} subscribers each on ${orderCount} orders`);
    const env = {
      ...redis.env,
      REDIS_KEY_PREFIX: `bench-${randomBytes(4).toString('hex')}:`,
      LIVE_LEASE_MS: String(leaseMs),
      LOG_LEVEL: 'info',
    };
    for (let r = 0; r < REPLICAS; r++)
      replicas.push(await startGatewayProcess({ upstream: sandbox, pollIntervalMs: interval, cpuProfDir: null, env }));
    for (let r = 0; r < REPLICAS; r++) {
      const vars = Array.from({ length: perReplica }, (_, i) => variables[i % orderCount]!);
      const opened = await openSubscribers(replicas[r]!.url, GIFT_CHANGES, vars, { perSocket: settings.BENCH_SUBSCRIBERS_PER_SOCKET });
      opened.forEach((s, i) => subscribers.push({ s, order: i % orderCount, replica: r }));
    }
    for (const replica of replicas) await waitForGauges(replica, { subscriptions: perReplica, pollers: orderCount });
    await sleep(5 * interval);
    const clusterCost = await upstreamPerInterval(ctx, settings.BENCH_INTERVALS);

    const idleStart = { at: performance.now(), commands: await commandsProcessed(redis) };
    // Twenty intervals: each replica sweeps a quiet log once in sixty, at phases spread over the keys, so a
    // window of twenty holds about a third of the sweeps: the average, without waiting a whole sweep.
    await sleep(20 * interval);
    const idlePerMs = ((await commandsProcessed(redis)) - idleStart.commands) / (performance.now() - idleStart.at);

    log(`cluster: ${ROUNDS} rounds of one redemption per order`);
    const latencies: number[] = [];
    let missing = 0;
    const roundsStart = { at: performance.now(), commands: await commandsProcessed(redis) };
    for (let round = 0; round < ROUNDS; round++) {
      const gifts = orders.map((o) => o.gifts[round]!);
      const sentAt = performance.now();
      await Promise.all(gifts.map((g) => upstream.redeem(g)));
      const got = await arrivals(subscribers, gifts, sentAt, 10 * interval + 5_000);
      latencies.push(...got.received);
      missing += got.missing;
    }
    const roundsCommands = (await commandsProcessed(redis)) - roundsStart.commands - idlePerMs * (performance.now() - roundsStart.at);
    latencies.sort((a, b) => a - b);

    const leases = await Promise.all(replicas.map(async (r) => metricValue(await r.metrics(), 'reward_gateway_live_leases') ?? 0));
    const leaderIndex = leases.indexOf(Math.max(...leases));
    log(`cluster: kill -9 replica ${leaderIndex} (leads ${leases[leaderIndex]} of ${orderCount} keys)`);
    const survivors = subscribers.filter((x) => x.replica !== leaderIndex);
    const gifts = orders.map((o) => o.gifts[ROUNDS]!);
    const killedAt = performance.now();
    process.kill(replicas[leaderIndex]!.pid, 'SIGKILL');
    await Promise.all(gifts.map((g) => upstream.redeem(g)));
    const failed = await arrivals(survivors, gifts, killedAt, leaseMs + 10 * interval + 10_000);
    const perOrderFirst = orders.map((_, o) => {
      const times = survivors
        .filter((x) => x.order === o)
        .map((x) => x.s.arrivals.get(gifts[o]!))
        .filter((t): t is number => t !== undefined);
      return times.length ? Math.min(...times) - killedAt : NaN;
    });
    let takeovers = 0;
    for (const [r, replica] of replicas.entries()) {
      if (r !== leaderIndex) takeovers += metricValue(await replica.metrics(), 'reward_gateway_live_takeovers_total') ?? 0;
    }
    const events = ROUNDS * orderCount;
    return {
      redisForm: settings.BENCH_REDIS,
      replicas: REPLICAS,
      subscribersPerReplica: perReplica,
      orders: orderCount,
      pollIntervalMs: interval,
      leaseMs,
      singleNode,
      cluster: clusterCost,
      costRatio: round(clusterCost.requestsPerInterval / singleNode.requestsPerInterval, 2),
      eventLatency: {
        samples: latencies.length,
        missing,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(latencies[latencies.length - 1] ?? NaN),
      },
      redis: {
        commandsPerEvent: round(roundsCommands / events, 1),
        commandsPerDelivery: round(roundsCommands / (events * REPLICAS * perReplica), 3),
        idleCommandsPerSecond: round(idlePerMs * 1000, 1),
        idleCommandsPerSecondPerOrder: round((idlePerMs * 1000) / orderCount, 2),
        idleCommandsPerOrderPerInterval: round((idlePerMs * interval) / orderCount, 2),
      },
      failover: {
        leaderKeys: leases[leaderIndex]!,
        killToFirstEventMs: round(Math.min(...perOrderFirst)),
        killToLastOrderMs: round(Math.max(...perOrderFirst)),
        missing: failed.missing,
        takeovers,
      },
      // The dead replica's sockets drop: only the survivors' errors count.
      subscriberErrors: survivors.reduce((n, x) => n + x.s.errors.length, 0),
    };
  } finally {
    await closeSubscribers(subscribers.map((x) => x.s)).catch(() => undefined);
    await Promise.all(replicas.map((r) => r.stop()));
    await redis.stop();
  }
}
