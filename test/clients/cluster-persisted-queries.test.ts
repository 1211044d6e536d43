import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { it } from '../support/test.js';
import { persisted, post, sha256 } from './apq.js';

// Cluster mode: a persisted query registered on one replica runs by hash on another (the document is in Redis,
// under a key with a hash tag), as a client behind a load balancer needs.

describe('automatic persisted queries in cluster mode', () => {
  it('a hash registered on one replica runs on another', async ({ redis, gatewayWith }) => {
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `test-${randomUUID().slice(0, 8)}:` };
    const [a, b] = [await gatewayWith({ env }), await gatewayWith({ env })];
    // Started as a replica is: it waits for Redis before serving.
    await Promise.all([a.listen(), b.listen()]);
    const query = '{ regions { id } }';
    const registered = await post((init) => a.fetch('/graphql', init), { query, extensions: persisted(query) });
    expect(registered.body.data.regions.length).toBeGreaterThan(0);

    const elsewhere = await post((init) => b.fetch('/graphql', init), { extensions: persisted(query) });
    expect(elsewhere.body.errors).toBeUndefined();
    expect(elsewhere.body.data).toEqual(registered.body.data);

    const inspect = new Redis(redis.url);
    try {
      expect(await inspect.get(`${env.REDIS_KEY_PREFIX}{apq:${sha256(query)}}:document`)).toBe(query);
      expect(await inspect.ttl(`${env.REDIS_KEY_PREFIX}{apq:${sha256(query)}}:document`)).toBeGreaterThan(0);
    } finally {
      inspect.disconnect();
    }
  });
});
