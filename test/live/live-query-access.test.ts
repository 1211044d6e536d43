import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { subscribeSse, subscribeWs, wsClient, type LiveGateway, type ResultStream } from '../support/live.js';
import { test } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from '../security/keys.js';
import { liveGatewayFor } from './fixtures.js';

// A live query meets the access pipeline as the same query without @live does: a key without the scope, a
// document too deep or too costly is refused alike, over graphql-ws and SSE.

const it = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring
  .extend('live', { scope: 'file' }, ({}, { onCleanup }) =>
    liveGatewayFor(onCleanup, { env: { ...KEYS_ENV, CACHE_TTL_MS: '60000', MAX_DEPTH: '5', MAX_COST: '400' } }),
  );

const ORDERS = (live: boolean, depth: 'shallow' | 'deep') => /* GraphQL */ `
  query Orders($refs: [ID!]!) ${live ? '@live' : ''} {
    campaigns(refs: $refs) {
      id
      status
      ${depth === 'deep' ? 'gifts(first: 1) { edges { node { campaign { gifts(first: 1) { edges { node { uuid } } } } } } }' : 'gifts(first: 10) { totalCount }'}
    }
  }
`;

type Key = (typeof KEYS)[keyof typeof KEYS];

async function post(gw: LiveGateway, key: Key, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${gw.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...bearer(key) },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
}

/** The codes of the first answer of a live query: its first result's errors, or the errors it was refused with. */
async function liveCodes(stream: ResultStream): Promise<(string | undefined)[]> {
  try {
    const first = await stream.next();
    return (first.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
  } catch {
    const error = stream.error as { extensions?: { code?: string } }[] | { message: string };
    return Array.isArray(error) ? error.map((e) => e.extensions?.code) : [String(error.message)];
  } finally {
    stream.close();
  }
}

describe.each(['graphql-ws', 'sse'] as const)('over %s', (transport) => {
  const open = (gw: LiveGateway, key: Key, query: string, variables: Record<string, unknown>): ResultStream => {
    if (transport === 'sse') return subscribeSse(gw.url, query, variables, bearer(key));
    const client = wsClient(gw.url, { connectionParams: bearer(key), lazyCloseTimeout: 0 });
    const stream = subscribeWs(client, query, variables);
    void stream.ended.then(() => client.dispose());
    return stream;
  };

  const refusals = [
    ['a key without the scope', KEYS.fundsReader, 'shallow', 1],
    ['a document too deep', KEYS.reader, 'deep', 1],
    // Each order looked up costs 200 (LOOKUP_COST) of MAX_COST's 400.
    ['a document too costly', KEYS.reader, 'shallow', 3],
  ] as const;
  for (const [name, key, depth, orders] of refusals) {
    it(`${name} is refused as without @live`, async ({ live: gw }) => {
      const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
      const refs = [order.id, ...Array.from({ length: orders - 1 }, (_, i) => `other-${i}`)];
      const plain = await post(gw, key, ORDERS(false, depth), { refs });
      const codes = plain.errors?.map((e) => e.extensions?.code);
      expect(codes?.length).toBeGreaterThan(0);
      expect(await liveCodes(open(gw, key, ORDERS(true, depth), { refs }))).toEqual(codes);
    });
  }

  it('a key with the scope gets the result', async ({ live: gw }) => {
    const order = await createEmailOrder(gw.sandbox, { recipients: 1 });
    expect(await liveCodes(open(gw, KEYS.reader, ORDERS(true, 'shallow'), { refs: [order.id] }))).toEqual([]);
  });
});

describe('@live with @defer or @stream', () => {
  // test/clients/defer-stream.test.ts has @stream in a fragment of a query that is not live, which must pass.
  it('is refused, in the operation or a fragment it spreads', async ({ live: gw }) => {
    const codes = async (query: string) => (await post(gw, KEYS.reader, query, {})).errors?.map((e) => e.extensions?.code);
    expect(await codes('query @live { regions @stream { id } }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(await codes('fragment F on Query { regions @stream { id } } query @live { ...F }')).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});
