import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { gql } from '../clients.js';
import { percentile, sleep, type BenchContext } from '../context.js';
import { round } from '../load.js';
import { startGatewayProcess } from '../processes.js';

// Webhooks: BENCH_WEBHOOK_ENDPOINTS endpoints on one loopback receiver, each watching an order of its own, on a
// gateway process of the scenario's own (WEBHOOK_ALLOWED_HOSTS=127.0.0.1). First one reward of every order is
// redeemed: redeem → signed POST at the receiver (the poll interval dominates it: a change waits for the next
// poll), and deliveries per second. Then the receiver answers 503 for BENCH_WEBHOOK_DOWN_S while the second
// reward of every order is redeemed, and comes back: every event must arrive, in order per endpoint, with no
// webhook-id accepted twice and every signature valid.

const SUBSCRIPTION = 'subscription ($campaign: ID) { giftStatusChanged(campaign: $campaign) { gift { uuid status } } }';

export interface WebhooksResult {
  endpoints: number;
  pollIntervalMs: number;
  retryBaseMs: number;
  /** redeem sent → the receiver accepting the POST, one redemption per order. */
  latency: { samples: number; missing: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Accepted deliveries per second over the first round (first redeem to last arrival). */
  deliveriesPerSecond: number;
  outage: {
    downSeconds: number;
    /** Attempts answered 503 while down. */
    refusedAttempts: number;
    /** From the receiver coming back to the last endpoint's event accepted. */
    drainSeconds: number;
    /** Events accepted / expected, over both rounds. */
    accepted: number;
    expected: number;
    /** Endpoints whose accepted events are not their order's rewards in redemption order. */
    outOfOrder: number;
    /** webhook-ids accepted more than once. */
    duplicates: number;
    invalidSignatures: number;
  };
}

interface Arrival {
  endpoint: number;
  id: string;
  uuid: string;
  at: number;
}

export async function webhooks(ctx: BenchContext): Promise<WebhooksResult> {
  const { settings, sandbox, upstream, log } = ctx;
  const count = settings.BENCH_WEBHOOK_ENDPOINTS;
  const interval = settings.BENCH_POLL_INTERVAL_MS;
  const retryBaseMs = 1_000;
  const secrets: string[] = [];
  const accepted: Arrival[] = [];
  let down = false;
  let refusedAttempts = 0;
  let invalidSignatures = 0;
  let onArrival: () => void = () => undefined;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      if (down) {
        refusedAttempts += 1;
        res.writeHead(503).end();
        return;
      }
      const endpoint = Number(req.url?.split('/').at(-1));
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(secrets[endpoint]!).verify(body, req.headers as Record<string, string>);
      } catch {
        invalidSignatures += 1;
      }
      const payload = JSON.parse(body) as { data: { giftStatusChanged: { gift: { uuid: string } } } };
      accepted.push({ endpoint, id: String(req.headers['webhook-id']), uuid: payload.data.giftStatusChanged.gift.uuid, at });
      res.writeHead(204).end();
      onArrival();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const gateway = await startGatewayProcess({
    upstream: sandbox,
    pollIntervalMs: interval,
    cpuProfDir: null,
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_MAX_ENDPOINTS_PER_KEY: String(count),
      WEBHOOK_RETRY_BASE_MS: String(retryBaseMs),
    },
  });
  const until = (ready: () => boolean, what: string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`webhooks: timed out waiting for ${what}`)), ms);
      onArrival = () => {
        if (ready()) {
          clearTimeout(timer);
          resolve();
        }
      };
      onArrival();
    });
  try {
    log(`webhooks: ${count} orders and endpoints`);
    const prefix = `bench-webhooks-${Date.now()}`;
    const orders: { uuid: string; gifts: string[] }[] = [];
    for (let i = 0; i < count; i++) {
      // A third reward stays open, so every order's subscription lives through both rounds.
      const order = await upstream.createEmailOrder(`${prefix}-${i}`, { recipients: 3, brandCode: 'sbxcoffeeus' });
      orders.push(order);
      const created = await gql(
        gateway.url,
        'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ... on CreateWebhookEndpointPayload { secret } ... on ValidationError { message } } }',
        { input: { url: `${receiverUrl}/hook/${i}`, subscription: SUBSCRIPTION, variables: { campaign: order.uuid } } },
      );
      const secret = created.data?.createWebhookEndpoint?.secret as string | undefined;
      if (!secret) throw new Error(`webhooks: registration failed: ${JSON.stringify(created)}`);
      secrets.push(secret);
    }
    // Every subscription past its baseline poll.
    await sleep(3 * interval);

    log('webhooks: one redemption per order');
    const redeemedAt: number[] = [];
    for (const order of orders) {
      redeemedAt.push(performance.now());
      await upstream.redeem(order.gifts[0]!);
    }
    await until(() => accepted.length >= count, 'the first round', 30 * interval + 10_000).catch(() => undefined);
    const firstRound = accepted.slice(0, count);
    const latencies = firstRound.map((a) => a.at - redeemedAt[a.endpoint]!).sort((a, b) => a - b);
    const spanS = firstRound.length ? (Math.max(...firstRound.map((a) => a.at)) - redeemedAt[0]!) / 1000 : NaN;

    const downSeconds = settings.BENCH_WEBHOOK_DOWN_S;
    log(`webhooks: receiver down for ${downSeconds} s while the second reward of every order is redeemed`);
    down = true;
    for (const order of orders) await upstream.redeem(order.gifts[1]!);
    await sleep(downSeconds * 1000);
    down = false;
    const upAt = performance.now();
    // Retries back off up to about the outage's length; then one more interval.
    await until(() => accepted.length >= 2 * count, 'every event after the outage', 2 * downSeconds * 1000 + 60_000).catch(() => undefined);
    const drainSeconds = (Math.max(upAt, ...accepted.slice(count).map((a) => a.at)) - upAt) / 1000;

    const byId = new Map<string, number>();
    for (const a of accepted) byId.set(a.id, (byId.get(a.id) ?? 0) + 1);
    const outOfOrder = orders.filter((order, i) => {
      const seen = accepted.filter((a) => a.endpoint === i).map((a) => a.uuid);
      return seen.join() !== order.gifts.slice(0, 2).join();
    }).length;
    return {
      endpoints: count,
      pollIntervalMs: interval,
      retryBaseMs,
      latency: {
        samples: latencies.length,
        missing: count - latencies.length,
        p50Ms: round(percentile(latencies, 50), 1),
        p99Ms: round(percentile(latencies, 99), 1),
        maxMs: round(latencies.at(-1) ?? NaN, 1),
      },
      deliveriesPerSecond: round(firstRound.length / spanS, 1),
      outage: {
        downSeconds,
        refusedAttempts,
        drainSeconds: round(drainSeconds, 1),
        accepted: accepted.length,
        expected: 2 * count,
        outOfOrder,
        duplicates: [...byId.values()].filter((n) => n > 1).length,
        invalidSignatures,
      },
    };
  } finally {
    await gateway.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
