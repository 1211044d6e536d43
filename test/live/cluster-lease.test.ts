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

  it('a stale holder whose lease lapsed and was claimed by another replica cannot renew it; the new holder keeps its lease', async ({ redis }) => {
    const prefix = `lease-two-${Date.now()}:`;
    const connect = () => connectRedis({ target: { url: redis.url }, prefix, commandTimeoutMs: 2_000 });
    const firstConnection = connect();
    const secondConnection = connect();
    // Two replicas of one cluster; the second's lease is long, so a renewal by the first that touched it
    // (GETEX … PX 400) would show as a lease cut to 400 ms.
    const first = createRedisStore(firstConnection, { leaseMs: LEASE_MS, retentionMs: 60_000 });
    const second = createRedisStore(secondConnection, { leaseMs: 100_000, retentionMs: 60_000 });
    stores.push(first, second);
    admin ??= new Redis(redis.url);
    expect(await firstConnection.connected(5_000)).toBe(true);
    expect(await secondConnection.connected(5_000)).toBe(true);
    const key = 'campaign:two';
    const leaseKey = firstConnection.keys.lease(key);

    const stale = await first.claim(key);
    expect(stale).not.toBeNull();
    // The second replica finds the lease held and waits; the first stalls past its lease, which lapses.
    expect(await second.claim(key)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 50));
    expect(await admin.exists(leaseKey)).toBe(0);
    const taken = await second.claim(key);
    expect(taken).not.toBeNull();
    expect(taken!.token).toBeGreaterThan(stale!.token);
    const secondValue = await admin.get(leaseKey);
    expect(secondValue).toBe(`${second.owner}|${taken!.token}`);

    // The first wakes up and renews what it still believes is its lease: refused, and the second's untouched.
    expect(await first.claim(key)).toBeNull();
    expect(await admin.get(leaseKey)).toBe(secondValue);
    expect(await admin.pttl(leaseKey)).toBeGreaterThan(90_000);
    // Fenced both ways: the stale holder's commit is refused, the new holder's goes through.
    expect(await first.commit(key, stale!.token, '{}', [])).toBeNull();
    expect(await second.commit(key, taken!.token, '{}', [])).not.toBeNull();
  });
});
