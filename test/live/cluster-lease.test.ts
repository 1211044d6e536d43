import { Redis } from 'ioredis';
import { afterAll, describe, expect } from 'vitest';
import { connectRedis } from '../../src/cluster/redis.js';
import { createRedisStore } from '../../src/cluster/redis-store.js';
import type { SharedStore } from '../../src/cluster/store.js';
import { test as it } from '../support/test.js';

// A lease is renewed only by its holder: a replica that still believes it holds a key's lease, while another
// replica now holds it, must leave the other's lease as it is (value and expiry) and learn it lost the key.

const LEASE_MS = 400;
const stores: SharedStore[] = [];
let admin: Redis | undefined;

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  admin?.disconnect();
});

describe('lease renewal', () => {
  it("never touches another replica's lease", async ({ redis }) => {
    const prefix = `lease-${Date.now()}:`;
    const connection = connectRedis({ target: { url: redis.url }, prefix, commandTimeoutMs: 2_000 });
    const store = createRedisStore(connection, { leaseMs: LEASE_MS, retentionMs: 60_000 });
    stores.push(store);
    admin = new Redis(redis.url);
    expect(await connection.connected(5_000)).toBe(true);

    const lease = await store.claim('campaign:one');
    expect(lease).not.toBeNull();
    // The lease lapsed (this replica stalled) and another replica took the key, with a long lease of its own.
    const leaseKey = connection.keys.lease('campaign:one');
    await admin.set(leaseKey, 'other-replica|99', 'PX', 100_000);
    // Past half the lease: the next claim renews.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2 + 50));

    expect(await store.claim('campaign:one')).toBeNull();
    expect(await admin.get(leaseKey)).toBe('other-replica|99');
    expect(await admin.pttl(leaseKey)).toBeGreaterThan(90_000);
  });
});
