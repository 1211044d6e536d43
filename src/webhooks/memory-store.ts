import type { AttemptRecord, Delivery, DeliveryPage, DeliveryStatus, WebhookEndpoint, WebhookStore } from './store.js';

// The single-process store: everything in this process's memory, gone when it stops (the start-up log and
// docs/webhooks.md say so). The delivery log is bounded per endpoint; pending deliveries are not, since dropping
// one would break the promise that every event arrives.

/** Settled deliveries kept per endpoint for webhookDeliveries. */
export const DELIVERY_LOG_SIZE = 500;
/** Attempts kept per delivery (the first ones and the latest ones are what an operator reads). */
export const ATTEMPTS_KEPT = 50;

interface Kept {
  endpoint: WebhookEndpoint;
  /** Newest last; pending ones are never dropped. */
  log: Delivery[];
}

export function createMemoryWebhookStore(): WebhookStore {
  const endpoints = new Map<string, Kept>();
  const kept = (id: string) => endpoints.get(id) ?? null;
  const copy = (endpoint: WebhookEndpoint): WebhookEndpoint => structuredClone(endpoint);
  return {
    durable: false,
    async insert(endpoint, maxPerOwner) {
      // Counted and set with no await between: nothing else runs in between.
      const owned = [...endpoints.values()].filter((k) => k.endpoint.owner === endpoint.owner).length;
      if (owned >= maxPerOwner) return { inserted: false, owned };
      endpoints.set(endpoint.id, { endpoint: copy(endpoint), log: [] });
      return { inserted: true };
    },
    async get(id) {
      const found = kept(id);
      return found ? copy(found.endpoint) : null;
    },
    async byOwner(owner) {
      return [...endpoints.values()].filter((k) => k.endpoint.owner === owner).map((k) => copy(k.endpoint));
    },
    async all() {
      return [...endpoints.values()].map((k) => copy(k.endpoint));
    },
    async update(id, changes) {
      const found = kept(id);
      if (!found) return null;
      found.endpoint = { ...found.endpoint, ...structuredClone(changes) };
      return copy(found.endpoint);
    },
    async remove(id) {
      endpoints.delete(id);
    },
    async enqueue(delivery) {
      const found = kept(delivery.endpointId);
      if (!found) return;
      found.log.push({ ...delivery, status: 'PENDING', attempts: [] });
      trim(found);
    },
    async head(endpointId) {
      const head = kept(endpointId)?.log.find((d) => d.status === 'PENDING');
      return head ? { ...head, attempts: [...head.attempts] } : null;
    },
    async backlog(endpointId) {
      const pending = kept(endpointId)?.log.filter((d) => d.status === 'PENDING') ?? [];
      return { pending: pending.length, oldestSeenAt: pending[0]?.seenAt ?? null };
    },
    async recordAttempt(endpointId, deliveryId, attempt: AttemptRecord, status: DeliveryStatus) {
      const found = kept(endpointId);
      const delivery = found?.log.find((d) => d.id === deliveryId && d.status === 'PENDING');
      if (!found || !delivery) return;
      delivery.firstAttemptAt ??= attempt.at;
      delivery.attempts.push(attempt);
      if (delivery.attempts.length > ATTEMPTS_KEPT) delivery.attempts.splice(ATTEMPTS_KEPT / 2, 1);
      delivery.status = status;
      trim(found);
    },
    async clearPending(endpointId) {
      const found = kept(endpointId);
      if (found) found.log = found.log.filter((d) => d.status !== 'PENDING');
    },
    async deliveries(endpointId, offset, limit): Promise<DeliveryPage> {
      const log = kept(endpointId)?.log ?? [];
      const newestFirst = [...log].reverse();
      return { items: newestFirst.slice(offset, offset + limit).map((d) => ({ ...d, attempts: [...d.attempts] })), total: log.length };
    },
  };
}

/** Drops the oldest settled deliveries beyond the bound. */
function trim(found: Kept): void {
  let excess = found.log.length - DELIVERY_LOG_SIZE;
  if (excess <= 0) return;
  found.log = found.log.filter((d) => d.status === 'PENDING' || excess-- <= 0);
}
