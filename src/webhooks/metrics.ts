import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AttemptResult, DeliveryHooks } from './endpoint-worker.js';
import type { Webhooks } from './webhooks.js';

// Webhook deliveries on the gateway's registry (ops/metrics.ts): attempts and deliveries by outcome, how long
// an event takes from the live log to an accepted POST, and what waits. Series carry the endpoint's id (a
// random UUID the owner chose nothing of), never its URL, which may hold a receiver's token; secrets never.

/** Change-to-delivery in seconds: about one poll interval at best, hours while a receiver is down. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600];

export interface WebhookMetrics {
  hooks: DeliveryHooks;
  /** Connects the endpoints whose backlog the gauges read when scraped. */
  watch(webhooks: Webhooks): void;
}

export function webhookMetrics(registry: Registry, now: () => number = Date.now): WebhookMetrics {
  let source: Webhooks | null = null;
  const attempts = new Counter({
    name: 'reward_gateway_webhook_attempts_total',
    help: 'HTTP attempts of webhook deliveries, by result (success is a 2xx; http_error, timeout, connection, refused by the address policy)',
    labelNames: ['result'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'reward_gateway_webhook_deliveries_total',
    help: 'Webhook deliveries by outcome: delivered (a 2xx), expired (failed for WEBHOOK_RETRY_FOR_MS; the endpoint was disabled)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'reward_gateway_webhook_delivery_latency_seconds',
    help: 'From the event taken from its live log to the receiver accepting it (retries included)',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: 'reward_gateway_webhook_backlog',
    help: 'Events waiting for delivery per webhook endpoint (the head being retried included), endpoints whose deliveries run here',
    labelNames: ['endpoint'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [id, pending] of await backlogs()) this.set({ endpoint: id }, pending.pending);
    },
  });
  new Gauge({
    name: 'reward_gateway_webhook_oldest_pending_seconds',
    help: 'Age of the oldest event waiting for delivery, over the endpoints whose deliveries run here; 0 when none waits',
    registers: [registry],
    async collect() {
      const oldest = Math.min(...[...(await backlogs()).values()].map((b) => b.oldestSeenAt ?? Infinity));
      this.set(Number.isFinite(oldest) ? (now() - oldest) / 1000 : 0);
    },
  });

  async function backlogs(): Promise<Map<string, { pending: number; oldestSeenAt: number | null }>> {
    const found = new Map<string, { pending: number; oldestSeenAt: number | null }>();
    if (!source) return found;
    for (const id of source.running()) found.set(id, await source.backlog(id));
    return found;
  }

  return {
    hooks: {
      attempt: (_endpoint, result: AttemptResult) => attempts.inc({ result }),
      delivered: (_endpoint, latencyMs) => {
        deliveries.inc({ outcome: 'delivered' });
        latency.observe(latencyMs / 1000);
      },
      expired: () => deliveries.inc({ outcome: 'expired' }),
    },
    watch(webhooks) {
      source = webhooks;
    },
  };
}
