import type { CheckEndpointUrl, SendAttempt } from './attempt.js';
import { createDeliverySupervisor, type DeliverySupervisor, type SupervisorDeps } from './delivery-supervisor.js';
import type { WorkerSettings } from './endpoint-worker.js';
import { createEndpoints, type Endpoints } from './endpoints.js';

// The webhook endpoints of one gateway process: what the GraphQL API asks of them (endpoints.ts) over the
// deliveries this replica runs for them (delivery-supervisor.ts), both on one store.

export interface WebhooksLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface WebhooksDeps extends Pick<SupervisorDeps, 'store' | 'leases' | 'leaseMs' | 'source' | 'hooks'> {
  egress: { check: CheckEndpointUrl; send: SendAttempt };
  settings: WorkerSettings & { maxEndpointsPerKey: number };
  logger: WebhooksLogger;
  now?(): number;
}

export interface Webhooks extends Endpoints, Pick<DeliverySupervisor, 'running' | 'close'> {
  /** Whether endpoints and pending deliveries survive a restart (false: memory mode). */
  durable: boolean;
}

export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const { store, egress, source, settings } = deps;
  const now = deps.now ?? Date.now;
  const supervisor = createDeliverySupervisor({
    store,
    leases: deps.leases,
    leaseMs: deps.leaseMs,
    send: egress.send,
    source,
    settings,
    logger: deps.logger,
    hooks: deps.hooks,
    now,
  });
  const endpoints = createEndpoints({ store, check: egress.check, source, maxEndpointsPerKey: settings.maxEndpointsPerKey, supervisor, now });
  return { durable: store.durable, ...endpoints, running: supervisor.running, close: supervisor.close };
}
