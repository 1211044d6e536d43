import type { WebhookRecords } from '../cluster/webhook-records.js';
import { ATTEMPTS_KEPT, DELIVERY_LOG_SIZE } from './memory-store.js';
import type { Delivery, WebhookEndpoint, WebhookStore } from './store.js';

// Cluster mode's store: the same WebhookStore over Redis (cluster/webhook-records.ts), as JSON. Every replica
// reads and writes it; only the replica holding an endpoint's lease (delivery-supervisor.ts) sends its queue, so the
// writes that matter for order (enqueue, attempts) come from one replica at a time.

/** A delivery's field in the hash: its webhook-id is not enough, since a replay queues the same event again. */
const fieldOf = (delivery: Pick<Delivery, 'id' | 'seenAt'>) => `${delivery.id}|${delivery.seenAt}`;

export function createRedisWebhookStore(records: WebhookRecords): WebhookStore {
  const read = async (id: string): Promise<WebhookEndpoint | null> => {
    const text = await records.get(id);
    return text === null ? null : (JSON.parse(text) as WebhookEndpoint);
  };
  const many = async (ids: string[]) => (await Promise.all(ids.map(read))).filter((e): e is WebhookEndpoint => e !== null);
  return {
    durable: true,
    insert: (endpoint, maxPerOwner) => records.insert(endpoint.id, endpoint.owner, JSON.stringify(endpoint), maxPerOwner),
    get: read,
    byOwner: async (owner) => many(await records.ids(owner)),
    all: async () => many(await records.ids(null)),
    async update(id, changes) {
      const endpoint = await read(id);
      if (!endpoint) return null;
      const updated = { ...endpoint, ...changes };
      await records.put(id, endpoint.owner, JSON.stringify(updated));
      return updated;
    },
    async remove(id) {
      const endpoint = await read(id);
      if (endpoint) await records.remove(id, endpoint.owner);
    },
    enqueue: (delivery) => records.enqueue(delivery.endpointId, fieldOf(delivery), JSON.stringify(delivery), DELIVERY_LOG_SIZE),
    async head(endpointId) {
      const { delivery } = await records.head(endpointId);
      return delivery === null ? null : (JSON.parse(delivery) as Delivery);
    },
    async backlog(endpointId) {
      const { delivery, pending } = await records.head(endpointId);
      return { pending, oldestSeenAt: delivery === null ? null : (JSON.parse(delivery) as Delivery).seenAt };
    },
    async recordAttempt(endpointId, deliveryId, attempt, status) {
      const { delivery: text } = await records.head(endpointId);
      const delivery = text === null ? null : (JSON.parse(text) as Delivery);
      // Only the head is ever attempted; a replay may have replaced the queue meanwhile.
      if (!delivery || delivery.id !== deliveryId) return;
      delivery.firstAttemptAt ??= attempt.at;
      delivery.attempts.push(attempt);
      if (delivery.attempts.length > ATTEMPTS_KEPT) delivery.attempts.splice(ATTEMPTS_KEPT / 2, 1);
      delivery.status = status;
      await records.save(endpointId, fieldOf(delivery), JSON.stringify(delivery), status !== 'PENDING');
    },
    clearPending: (endpointId) => records.clearPending(endpointId),
    async deliveries(endpointId, offset, limit) {
      const { deliveries, total } = await records.recent(endpointId, offset, limit);
      return { items: deliveries.map((d) => JSON.parse(d) as Delivery), total };
    },
  };
}
