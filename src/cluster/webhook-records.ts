import type { RedisConnection } from './redis.js';

// Webhook endpoints and their deliveries in cluster mode (webhooks/redis-store.ts reads and writes them as JSON
// through this). Redis keeps them, so they survive a replica's restart and any replica can take an endpoint's
// deliveries over from one that died: its queue is here, in order, with every attempt made so far.
//
//   P{webhooks}:all                  set of every endpoint id
//   P{webhooks}:owner:<owner>        set of the endpoint ids of one owner (webhooks/store.ts's ownerOf; the cap counts them)
//   P{webhook:<id>}:endpoint         the endpoint (JSON), its secrets included: Redis must be private
//   P{webhook:<id>}:deliveries       hash delivery id → delivery (JSON) with its attempts
//   P{webhook:<id>}:queue            list of pending delivery ids, oldest first: the head is being sent
//   P{webhook:<id>}:order            list of recent delivery ids, oldest first, trimmed of settled ones

// KEYS owner all; ARGV id max. Lists the endpoint under its owner and among all unless the owner has `max`
// already: the count and the listing are one step, so concurrent registrations cannot pass the cap together.
// Both keys carry the tag {webhooks}: one slot of a Cluster. Replies -1 when listed, else the owner's count.
const ADMIT = `
local owned = redis.call('SCARD', KEYS[1])
if owned >= tonumber(ARGV[2]) then return owned end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
return -1
`;

export interface WebhookRecords {
  /** A new endpoint, unless its owner has `max` already (then how many it has). */
  insert(id: string, owner: string, endpoint: string, max: number): Promise<{ inserted: true } | { inserted: false; owned: number }>;
  /** Stores an endpoint again (a change). */
  put(id: string, owner: string, endpoint: string): Promise<void>;
  get(id: string): Promise<string | null>;
  /** Every endpoint id, or one caller's. */
  ids(owner: string | null): Promise<string[]>;
  remove(id: string, owner: string): Promise<void>;
  /** Appends a pending delivery to the queue; beyond `keep` recent ones, the oldest settled are dropped. */
  enqueue(id: string, deliveryId: string, delivery: string, keep: number): Promise<void>;
  /** The queue's head, and how many wait. */
  head(id: string): Promise<{ delivery: string | null; pending: number }>;
  /** Stores a delivery again (an attempt made); `settled` takes it off the queue. */
  save(id: string, deliveryId: string, delivery: string, settled: boolean): Promise<void>;
  /** Drops every pending delivery. */
  clearPending(id: string): Promise<void>;
  /** Recent deliveries, newest first, and how many are kept. */
  recent(id: string, offset: number, limit: number): Promise<{ deliveries: string[]; total: number }>;
}

export function redisWebhookRecords(connection: RedisConnection): WebhookRecords {
  const { client, guard } = connection;
  const tagged = connection.keys.tagged;
  const all = tagged('webhooks', 'all');
  const owned = (owner: string) => tagged('webhooks', `owner:${owner}`);
  const key = (id: string, name: 'endpoint' | 'deliveries' | 'queue' | 'order') => tagged(`webhook:${id}`, name);
  const scripted = client as unknown as { rgWebhookAdmit?: (owner: string, all: string, id: string, max: number) => Promise<number> };
  if (!scripted.rgWebhookAdmit) client.defineCommand('rgWebhookAdmit', { lua: ADMIT, numberOfKeys: 2 });
  return {
    async insert(id, owner, endpoint, max) {
      // Stored before it is listed, so whoever finds the id in a set finds the endpoint; unlisted (refused, or
      // Redis failed in between) it is an orphan no listing reaches, removed here when Redis lets it.
      await guard(client.set(key(id, 'endpoint'), endpoint));
      let count: number;
      try {
        count = await guard(scripted.rgWebhookAdmit!(owned(owner), all, id, max));
      } catch (error) {
        await guard(client.del(key(id, 'endpoint'))).catch(() => undefined);
        throw error;
      }
      if (count === -1) return { inserted: true };
      await guard(client.del(key(id, 'endpoint')));
      return { inserted: false, owned: count };
    },
    async put(id, owner, endpoint) {
      await guard(client.set(key(id, 'endpoint'), endpoint));
      await guard(client.sadd(all, id));
      await guard(client.sadd(owned(owner), id));
    },
    get: (id) => guard(client.get(key(id, 'endpoint'))),
    ids: (owner) => guard(client.smembers(owner === null ? all : owned(owner))),
    async remove(id, owner) {
      await guard(client.del(key(id, 'endpoint'), key(id, 'deliveries'), key(id, 'queue'), key(id, 'order')));
      await guard(client.srem(all, id));
      await guard(client.srem(owned(owner), id));
    },
    async enqueue(id, deliveryId, delivery, keep) {
      await guard(client.hset(key(id, 'deliveries'), deliveryId, delivery));
      await guard(client.rpush(key(id, 'queue'), deliveryId));
      const kept = await guard(client.rpush(key(id, 'order'), deliveryId));
      if (kept <= keep) return;
      // The oldest beyond the bound go, unless still pending (those wait for delivery, however many).
      const oldest = await guard(client.lrange(key(id, 'order'), 0, kept - keep - 1));
      const pending = new Set(await guard(client.lrange(key(id, 'queue'), 0, -1)));
      for (const old of oldest.filter((d) => !pending.has(d))) {
        await guard(client.lrem(key(id, 'order'), 1, old));
        await guard(client.hdel(key(id, 'deliveries'), old));
      }
    },
    async head(id) {
      const [first] = await guard(client.lrange(key(id, 'queue'), 0, 0));
      const pending = await guard(client.llen(key(id, 'queue')));
      return { delivery: first === undefined ? null : await guard(client.hget(key(id, 'deliveries'), first)), pending };
    },
    async save(id, deliveryId, delivery, settled) {
      await guard(client.hset(key(id, 'deliveries'), deliveryId, delivery));
      if (settled) await guard(client.lrem(key(id, 'queue'), 1, deliveryId));
    },
    async clearPending(id) {
      const pending = await guard(client.lrange(key(id, 'queue'), 0, -1));
      await guard(client.del(key(id, 'queue')));
      for (const deliveryId of pending) {
        await guard(client.lrem(key(id, 'order'), 1, deliveryId));
        await guard(client.hdel(key(id, 'deliveries'), deliveryId));
      }
    },
    async recent(id, offset, limit) {
      const total = await guard(client.llen(key(id, 'order')));
      if (limit <= 0 || offset >= total) return { deliveries: [], total };
      // Newest first: offsets count from the end of the list.
      const ids = (await guard(client.lrange(key(id, 'order'), Math.max(total - offset - limit, 0), total - offset - 1))).reverse();
      const found = ids.length ? await guard(client.hmget(key(id, 'deliveries'), ...ids)) : [];
      return { deliveries: found.filter((d): d is string => d !== null), total };
    },
  };
}
