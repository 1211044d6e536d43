import { fileURLToPath } from 'node:url';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';
import { persisted, post, sha256 } from './apq.js';

// Automatic persisted queries (APQ): Apollo Client's persisted-query link with its defaults sends the hash alone
// first, and the document only after PERSISTED_QUERY_NOT_FOUND. With TRUSTED_DOCUMENTS set nothing registers.

const it = testWith();

const REGIONS = '{ regions { id } }';

describe('automatic persisted queries', () => {
  it('answers PERSISTED_QUERY_NOT_FOUND for an unknown hash, and runs it by hash once registered', async ({ gateway }) => {
    const send = (init: RequestInit) => gateway.fetch('/graphql', init);
    const query = '{ regions { id name } }';
    const unknown = await post(send, { extensions: persisted(query) });
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(unknown.body.errors?.[0]?.message).toMatch(/send the request again with the query/);

    const registered = await post(send, { query, extensions: persisted(query) });
    expect(registered.body.data.regions.length).toBeGreaterThan(0);
    const byHash = await post(send, { extensions: persisted(query) });
    expect(byHash.body.data).toEqual(registered.body.data);
  });

  it('refuses a document whose hash does not match (PERSISTED_QUERY_MISMATCH)', async ({ gateway }) => {
    const wrong = await post((init) => gateway.fetch('/graphql', init), { query: REGIONS, extensions: persisted('{ viewer { username } }') });
    expect(wrong.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_MISMATCH');
    expect(wrong.body.errors?.[0]?.message).toMatch(/SHA-256 of the query sent/);
  });

  it("works with Apollo Client's persisted-query link as it comes: the second query sends only the hash", async ({ gatewayWith }) => {
    const gw = await gatewayWith({ listen: true });
    const bodies: { query?: string; extensions?: unknown }[] = [];
    const recording: typeof fetch = async (input, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    };
    const client = new ApolloClient({
      link: ApolloLink.from([new PersistedQueryLink({ sha256 }), new HttpLink({ uri: `${gw.url}/graphql`, fetch: recording })]),
      cache: new InMemoryCache(),
    });
    const first = await client.query<{ regions: { id: string }[] }>({ query: gql(REGIONS), fetchPolicy: 'network-only' });
    expect(first.data?.regions.length).toBeGreaterThan(0);
    // Hash alone, refused as unknown; then the document with its hash.
    expect(bodies.map((b) => b.query === undefined)).toEqual([true, false]);
    const again = await client.query({ query: gql(REGIONS), fetchPolicy: 'network-only' });
    expect(again.data).toEqual(first.data);
    expect(bodies.length).toBe(3);
    expect(bodies[2]!.query).toBeUndefined();
  });

  it('registers nothing when TRUSTED_DOCUMENTS is set: only the manifest runs', async ({ gatewayWith }) => {
    const manifest = fileURLToPath(new URL('../../operations/__generated__/persisted-documents.json', import.meta.url));
    const gw = await gatewayWith({ env: { TRUSTED_DOCUMENTS: manifest } });
    const send = (init: RequestInit) => gw.fetch('/graphql', init);
    const attempt = await post(send, { query: REGIONS, extensions: persisted(REGIONS) });
    expect(attempt.body.data ?? null).toBeNull();
    const byHash = await post(send, { extensions: persisted(REGIONS) });
    expect(byHash.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(byHash.body.data ?? null).toBeNull();
  });
});
