import type { Registry } from 'prom-client';
import type { WebhookRecords } from '../cluster/webhook-records.js';
import type { LiveSettings } from '../live/config.js';
import type { ProcessSettings } from '../ops/config.js';
import { webhooksRequireHttps, type WebhooksSettings } from './config.js';
import { createWebhookEgress, type ResolveAll, type WebhookEgress } from './egress.js';
import { createMemoryWebhookStore } from './memory-store.js';
import { webhookMetrics } from './metrics.js';
import { createRedisWebhookStore } from './redis-store.js';
import type { SubscriptionSource } from './source.js';
import type { EndpointLeases } from './delivery-supervisor.js';
import { createWebhooks, type Webhooks, type WebhooksLogger } from './webhooks.js';

// The webhooks area as the configuration asks for it (src/app.ts composes it): the egress their POSTs go out
// through, and the endpoints with their store (Redis in cluster mode), delivery workers and metrics.

type Logger = WebhooksLogger & { info(msg: string): void; debug(obj: object, msg: string): void };

/** The address policy and one pinned connection per attempt. `lookup`: the system's resolver unless given. */
export function webhookEgressFromConfig(
  config: Pick<WebhooksSettings, 'WEBHOOK_ALLOWED_HOSTS' | 'WEBHOOK_ALLOWED_PORTS'> & Pick<ProcessSettings, 'NODE_ENV'>,
  logger: Logger,
  lookup?: ResolveAll,
): WebhookEgress {
  return createWebhookEgress({
    allowedHosts: config.WEBHOOK_ALLOWED_HOSTS ?? [],
    allowedPorts: config.WEBHOOK_ALLOWED_PORTS ?? [],
    requireHttps: webhooksRequireHttps(config.NODE_ENV),
    logger,
    ...(lookup && { lookup }),
  });
}

export interface WebhooksWiring {
  egress: WebhookEgress;
  /** Cluster mode: the endpoints and their queues in Redis; undefined in memory mode. */
  records?: WebhookRecords;
  leases: EndpointLeases;
  /** Where the endpoints' subscriptions run, as their registrants. */
  source: SubscriptionSource;
  /** The gateway's metrics registry, which the delivery series join. */
  registry: Registry;
  logger: Logger;
}

export function webhooksFromConfig(
  config: Pick<LiveSettings, 'LIVE_LEASE_MS'> &
    Pick<WebhooksSettings, 'WEBHOOK_MAX_ENDPOINTS_PER_KEY' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_RETRY_BASE_MS' | 'WEBHOOK_RETRY_FOR_MS'>,
  { egress, records, leases, source, registry, logger }: WebhooksWiring,
): Webhooks {
  const series = webhookMetrics(registry);
  const webhooks = createWebhooks({
    // Cluster mode: in Redis, every replica's to send; the lease of each endpoint says which one does.
    store: records ? createRedisWebhookStore(records) : createMemoryWebhookStore(),
    leases,
    leaseMs: config.LIVE_LEASE_MS,
    egress,
    source,
    settings: {
      maxEndpointsPerKey: config.WEBHOOK_MAX_ENDPOINTS_PER_KEY,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    },
    logger,
    hooks: series.hooks,
  });
  series.watch(webhooks);
  if (webhooks.durable) logger.info('webhooks: endpoints and pending deliveries are kept in Redis, shared by the replicas');
  else logger.info('webhooks: endpoints and pending deliveries are kept in this process only and do not survive a restart (docs/webhooks.md)');
  return webhooks;
}
