import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { sleep } from './context.js';
import { metricSum, metricValue, type GatewayProcess } from './processes.js';

// WebSocket subscribers for the fan-out and soak scenarios: one graphql-ws client (one socket) per
// subscriber, each recording when its events arrive, and waits on the gateway's own gauges.

export const GIFT_CHANGES = `subscription Changes($campaign: ID) {
  giftStatusChanged(campaign: $campaign) { gift { uuid status } previousStatus changedAt }
}`;

export interface Subscriber {
  /** The socket it shares with `perSocket - 1` others (one socket each by default). */
  client: Client;
  /** Gift uuid → when (performance.now()) its change arrived. */
  arrivals: Map<string, number>;
  events: number;
  errors: string[];
  ended: boolean;
}

function subscribe(client: Client, query: string, variables: Record<string, unknown>): Subscriber {
  const subscriber: Subscriber = { client, arrivals: new Map(), events: 0, errors: [], ended: false };
  client.subscribe(
    { query, variables },
    {
      next(result: any) {
        const at = performance.now();
        subscriber.events += 1;
        if (result.errors) subscriber.errors.push(JSON.stringify(result.errors).slice(0, 300));
        const uuid = result.data?.giftStatusChanged?.gift?.uuid;
        if (uuid) subscriber.arrivals.set(uuid, at);
      },
      error(error) {
        subscriber.errors.push(error instanceof Error ? error.message : JSON.stringify(error).slice(0, 300));
      },
      complete() {
        subscriber.ended = true;
      },
    },
  );
  return subscriber;
}

/** One graphql-ws client (one WebSocket) carrying the given subscriptions; resolves once the socket is acknowledged. */
function openSocket(url: string, query: string, variables: Record<string, unknown>[]): Promise<Subscriber[]> {
  const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
  return new Promise((resolve, reject) => {
    const subscribers = variables.map((v) => subscribe(client, query, v));
    const off = client.on('connected', () => (off(), resolve(subscribers)));
    client.on('error', (error) => reject(error instanceof Error ? error : new Error('WebSocket error')));
  });
}

/** One subscriber per entry, `perSocket` to a WebSocket, `batch` socket handshakes at a time. */
export async function openSubscribers(
  url: string,
  query: string,
  variables: Record<string, unknown>[],
  { perSocket = 1, batch = 100 }: { perSocket?: number; batch?: number } = {},
): Promise<Subscriber[]> {
  const groups: Record<string, unknown>[][] = [];
  for (let i = 0; i < variables.length; i += perSocket) groups.push(variables.slice(i, i + perSocket));
  const subscribers: Subscriber[] = [];
  for (let i = 0; i < groups.length; i += batch) {
    for (const opened of await Promise.all(groups.slice(i, i + batch).map((g) => openSocket(url, query, g)))) subscribers.push(...opened);
  }
  return subscribers;
}

export async function closeSubscribers(subscribers: Subscriber[]): Promise<void> {
  await Promise.all([...new Set(subscribers.map((s) => s.client))].map((client) => client.dispose()));
}

/**
 * The live hub's gauges and counters from one scrape of the gateway's /metrics: polls and upstream calls are
 * both counted when they end, so their ratio between two scrapes is exact.
 */
export async function liveGauges(
  gateway: GatewayProcess,
): Promise<{ subscriptions: number; pollers: number; campaignPolls: number; upstreamCalls: number }> {
  const text = await gateway.metrics();
  return {
    subscriptions: metricValue(text, 'reward_gateway_subscriptions_active') ?? NaN,
    pollers: metricValue(text, 'reward_gateway_live_pollers') ?? NaN,
    campaignPolls: metricValue(text, 'reward_gateway_live_polls_total{feed="campaign"}') ?? 0,
    upstreamCalls: metricSum(text, 'reward_gateway_upstream_requests_total'),
  };
}

/** Waits until the hub reports `subscriptions` and `pollers`; throws after `timeoutMs`. */
export async function waitForGauges(gateway: GatewayProcess, want: { subscriptions: number; pollers: number }, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = await liveGauges(gateway);
  while (seen.subscriptions !== want.subscriptions || seen.pollers !== want.pollers) {
    if (Date.now() > deadline) throw new Error(`live hub at ${JSON.stringify(seen)}, waited for ${JSON.stringify(want)}`);
    await sleep(100);
    seen = await liveGauges(gateway);
  }
}
