import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { createLocalCharges } from '../../src/security/persisted-query-charges.js';
import { startRedis } from '../support/cluster.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { apiKeys, bearer, it, type ApiKey } from '../support/test.js';
import type { TestRedis } from '../support/cluster.js';
import { persisted, post } from './apq.js';

// Automatic persisted queries keep only what they can run: a document is registered once it has parsed, passed
// the limits (tokens, depth, aliases, cost) and run for a caller whose scopes allow it, and each caller
// (API key, token subject) holds at most APQ_MAX_DOCUMENTS_PER_CALLER documents of at most
// APQ_MAX_BYTES_PER_CALLER bytes in all. In memory and in Redis (cluster mode) alike.

const KEYS = apiKeys({ webhooksOnly: ['webhooks:read'], reader: ['rewards:read'], other: ['rewards:read'] });
const KEYS_ENV = { GATEWAY_API_KEYS: JSON.stringify(Object.values(KEYS)) };
const BOUNDS = { APQ_MAX_DOCUMENTS_PER_CALLER: '3', APQ_MAX_BYTES_PER_CALLER: '2000' };

type Send = (init: RequestInit) => Promise<Response>;
type GatewayWith = (options: {
  env: Record<string, string>;
}) => Promise<{ fetch(path: string, init?: RequestInit): Promise<Response>; listen(): Promise<string> }>;

/** Registers `query` as `key` (the document with its hash), then asks for it by hash alone: whether it was kept. */
async function kept(send: Send, key: ApiKey, query: string): Promise<{ registered: any; keptAfter: boolean }> {
  const as: Send = (init) => send({ ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(key) } });
  const registered = await post(as, { query, extensions: persisted(query) });
  const byHash = await post(as, { extensions: persisted(query) });
  const notFound = byHash.body.errors?.[0]?.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND';
  return { registered: registered.body, keptAfter: !notFound };
}

/** Every APQ document Redis holds under `prefix`. */
async function documentsInRedis(redis: TestRedis, prefix: string): Promise<string[]> {
  const inspect = new Redis(redis.url);
  try {
    const keys = await inspect.keys(`${prefix}{apq:*`);
    const values = await Promise.all(keys.map((key) => inspect.type(key).then((type) => (type === 'string' ? inspect.get(key) : null))));
    return values.filter((value): value is string => value !== null);
  } finally {
    inspect.disconnect();
  }
}

const modes = [
  { mode: 'in memory', cluster: false },
  { mode: 'in Redis', cluster: true },
];

describe.each(modes)('automatic persisted queries keep only what they can run ($mode)', ({ cluster }) => {
  async function start(gatewayWith: GatewayWith, redis: TestRedis, env: Record<string, string> = {}) {
    const prefix = `test-${randomUUID().slice(0, 8)}:`;
    const shared = cluster ? redis : null;
    const gw = await gatewayWith({
      env: { ...KEYS_ENV, ...env, ...(shared ? { REDIS_URL: shared.url, REDIS_KEY_PREFIX: prefix } : {}) },
    });
    if (shared) await gw.listen();
    const send: Send = (init) => gw.fetch('/graphql', init);
    return { send, stored: async () => (shared ? documentsInRedis(shared, prefix) : []) };
  }

  it('keeps no document that does not parse, breaks a limit or needs a scope the caller lacks', async ({ gatewayWith, redis }) => {
    const { send, stored } = await start(gatewayWith, redis, { MAX_TOKENS: '100', MAX_DEPTH: '4', MAX_ALIASES: '2' });
    const refused: [string, string][] = [
      [`# ${'x'.repeat(60_000)}`, 'GRAPHQL_PARSE_FAILED'],
      [`{ ${'__typename '.repeat(150)}}`, 'TOKEN_LIMIT_EXCEEDED'],
      ['{ campaigns(refs: ["a"]) { gifts { edges { node { brand { name } } } } } }', 'DEPTH_LIMIT_EXCEEDED'],
      ['{ a: regions { id } b: regions { id } c: regions { id } }', 'ALIAS_LIMIT_EXCEEDED'],
      ['{ nope }', 'GRAPHQL_VALIDATION_FAILED'],
      ['{ regions { id } }', 'FORBIDDEN'],
    ];
    for (const [query, code] of refused) {
      const { registered, keptAfter } = await kept(send, KEYS.webhooksOnly, query);
      expect(registered.errors?.[0]?.extensions?.code, query.slice(0, 40)).toBe(code);
      expect(keptAfter, query.slice(0, 40)).toBe(false);
    }
    expect(await stored()).toEqual([]);
    // What the caller may run is kept as before.
    expect((await kept(send, KEYS.webhooksOnly, '{ webhookEndpoints { id } }')).keptAfter).toBe(true);
  });

  it('keeps none over the cost limit', async ({ gatewayWith, redis }) => {
    const { send, stored } = await start(gatewayWith, redis, { MAX_COST: '50' });
    const query = `{ campaigns(refs: ["a", "b", "c"]) { uuid } }`;
    const { registered, keptAfter } = await kept(send, KEYS.reader, query);
    expect(registered.errors?.[0]?.extensions?.code).toBe('COST_LIMIT_EXCEEDED');
    expect(keptAfter).toBe(false);
    expect(await stored()).toEqual([]);
  });

  it('keeps at most APQ_MAX_DOCUMENTS_PER_CALLER documents per caller; the others still run, and other callers are not held', async ({
    gatewayWith,
    redis,
  }) => {
    const { send, stored } = await start(gatewayWith, redis, BOUNDS);
    const queries = [1, 2, 3, 4, 5].map((n) => `query Regions${n} { regions { id } }`);
    const results = [];
    for (const query of queries) results.push(await kept(send, KEYS.reader, query));
    for (const { registered } of results) expect(registered.data.regions.length).toBeGreaterThan(0);
    expect(results.map((r) => r.keptAfter)).toEqual([true, true, true, false, false]);
    // Registering a kept one again refreshes it without counting twice.
    expect((await kept(send, KEYS.reader, queries[0]!)).keptAfter).toBe(true);
    expect((await kept(send, KEYS.other, queries[4]!)).keptAfter).toBe(true);
    if (cluster) expect((await stored()).length).toBe(4);
  });

  it('keeps at most APQ_MAX_BYTES_PER_CALLER bytes of documents per caller', async ({ gatewayWith, redis }) => {
    const { send } = await start(gatewayWith, redis, BOUNDS);
    // 900 bytes each (a comment pads them): two fit in 2,000 bytes, a third does not.
    const padded = (n: number) => {
      const query = `query Padded${n} { regions { id } }\n#`;
      return query + 'p'.repeat(900 - query.length);
    };
    const results = [];
    for (const n of [1, 2, 3]) results.push(await kept(send, KEYS.reader, padded(n)));
    expect(results.map((r) => r.keptAfter)).toEqual([true, true, false]);
  });

  it('holds the bound under concurrent registrations', async ({ gatewayWith, redis }) => {
    const { send, stored } = await start(gatewayWith, redis, BOUNDS);
    const queries = Array.from({ length: 20 }, (_, n) => `query Concurrent${n} { regions { id } }`);
    const as: Send = (init) => send({ ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(KEYS.reader) } });
    await Promise.all(queries.map((query) => post(as, { query, extensions: persisted(query) })));
    let found = 0;
    for (const query of queries) {
      const byHash = await post(as, { extensions: persisted(query) });
      if (byHash.body.data) found++;
    }
    expect(found).toBe(3);
    if (cluster) expect((await stored()).length).toBe(3);
  });
});

describe('automatic persisted queries over WebSocket', () => {
  it('registers what runs and keeps the same bounds', async ({ gatewayWith }) => {
    const gw = await gatewayWith({ env: { ...KEYS_ENV, ...BOUNDS } });
    const url = await gw.listen();
    const client = wsClient(url, { connectionParams: { authorization: bearer(KEYS.reader).authorization } });
    try {
      const results = [];
      for (const n of [1, 2, 3, 4]) {
        const query = `query Socket${n} { regions { id } }`;
        const answer = await subscribeWs(client, query, undefined, { extensions: persisted(query) }).next();
        expect(answer.data.regions.length).toBeGreaterThan(0);
        const byHash = await post(
          (init) => gw.fetch('/graphql', { ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(KEYS.reader) } }),
          {
            extensions: persisted(query),
          },
        );
        results.push(byHash.body.data !== undefined);
      }
      expect(results).toEqual([true, true, true, false]);
    } finally {
      await client.dispose();
    }
  });
});

describe('automatic persisted queries while Redis does not answer', () => {
  it("each replica keeps and counts its own, within the caller's bounds", async ({ gatewayWith }) => {
    const redis = await startRedis();
    try {
      const gw = await gatewayWith({
        env: { ...KEYS_ENV, ...BOUNDS, REDIS_URL: redis.url, REDIS_KEY_PREFIX: `test-${randomUUID().slice(0, 8)}:`, REDIS_COMMAND_TIMEOUT_MS: '200' },
      });
      await gw.listen();
      await redis.stop();
      const send: Send = (init) => gw.fetch('/graphql', init);
      const results = [];
      for (const n of [1, 2, 3, 4]) results.push(await kept(send, KEYS.reader, `query Down${n} { regions { id } }`));
      for (const { registered } of results) expect(registered.data.regions.length).toBeGreaterThan(0);
      expect(results.map((r) => r.keptAfter)).toEqual([true, true, true, false]);
    } finally {
      await redis.stop();
    }
  }, 30_000);
});

describe("one process's count of registrations", () => {
  it('never holds more than the bounds of unexpired documents, and always refreshes one already held (model)', () => {
    const bounds = { maxDocuments: 3, maxBytes: 1_000 };
    const step = fc.record({
      caller: fc.constantFrom('a', 'b'),
      document: fc.integer({ min: 0, max: 4 }),
      advanceMs: fc.integer({ min: 0, max: 40 }),
    });
    fc.assert(
      // A hash names one document, so one size: sizes[document].
      fc.property(fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 5, maxLength: 5 }), fc.array(step, { maxLength: 60 }), (sizes, steps) => {
        let now = 0;
        const charges = createLocalCharges(bounds, 100, () => now);
        // The model: per caller, hash → { bytes, lapsesAt } of what was admitted.
        const model = new Map<string, Map<string, { bytes: number; lapsesAt: number }>>();
        for (const { caller, document, advanceMs } of steps) {
          const [hash, bytes] = [`h${document}`, sizes[document]!];
          now += advanceMs;
          const held = model.get(caller) ?? new Map<string, { bytes: number; lapsesAt: number }>();
          for (const [h, c] of held) if (c.lapsesAt <= now) held.delete(h);
          const others = [...held].filter(([h]) => h !== hash);
          const fits =
            held.has(hash) || (held.size < bounds.maxDocuments && others.reduce((sum, [, c]) => sum + c.bytes, 0) + bytes <= bounds.maxBytes);
          expect(charges.admit(caller, hash, bytes)).toBe(fits);
          if (fits) held.set(hash, { bytes, lapsesAt: now + 100 });
          model.set(caller, held);
          expect(held.size).toBeLessThanOrEqual(bounds.maxDocuments);
          expect([...held.values()].reduce((sum, c) => sum + c.bytes, 0)).toBeLessThanOrEqual(bounds.maxBytes);
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    );
  });
});
