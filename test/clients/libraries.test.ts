import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Client as UrqlClient, fetchExchange } from '@urql/core';
import { GraphQLClient } from 'graphql-request';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { apiKeys, testWith } from '../support/test.js';
import type { TestSandbox } from '../support/sandbox.js';
import { sha256 } from './apq.js';

// The client libraries frontend and mobile teams use, each with its default settings, against a listening
// gateway: what docs/clients.md shows is what runs here. Subscriptions are answered when the sandbox's balance
// changes (a bank transfer through its control API).

const keys = apiKeys({ app: ['rewards:read', 'funds:read'] });
const it = testWith({ keys, env: { POLL_INTERVAL_MS: '100', POLL_INTERVAL_FLOOR_MS: '10' } });

const KEY = keys.app.key;
const REGIONS = '{ regions { id name } }';
const FUNDS_CHANGED = 'subscription { fundsChanged { funds { balances { currency availableInCents } } } }';

/** Waits for a subscription's first event, moving money into the sandbox until one comes (bounded). */
async function firstEvent<T>(sandbox: TestSandbox, subscribe: (onEvent: (event: T) => void) => () => void): Promise<T> {
  let stop: () => void = () => undefined;
  const event = new Promise<T>((resolve) => (stop = subscribe(resolve)));
  for (let i = 0; i < 50; i++) {
    const got = await Promise.race([event, new Promise((resolve) => setTimeout(() => resolve(null), 200))]);
    if (got) {
      stop();
      return got as T;
    }
    await sandbox.control.topUp('USD', 100);
  }
  stop();
  throw new Error('no event within 10 s');
}

describe('client libraries with their defaults', () => {
  it('urql (@urql/core): queries go as GET, with the key in fetchOptions', async ({ gateway }) => {
    const url = await gateway.listen();
    const methods: string[] = [];
    const client = new UrqlClient({
      url: `${url}/graphql`,
      exchanges: [fetchExchange],
      fetchOptions: { headers: { authorization: `Bearer ${KEY}` } },
      fetch: (input, init) => (methods.push(init?.method ?? 'GET'), fetch(input, init)),
    });
    const result = await client.query(REGIONS, {}).toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data.regions.length).toBeGreaterThan(0);
    expect(methods).toEqual(['GET']);
  });

  it('Apollo Client: persisted-query link over HTTP, GraphQLWsLink for subscriptions', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const ws = createWsClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${KEY}` },
    });
    const http = ApolloLink.from([
      new PersistedQueryLink({ sha256 }),
      new HttpLink({ uri: `${url}/graphql`, headers: { authorization: `Bearer ${KEY}` } }),
    ]);
    const client = new ApolloClient({
      link: ApolloLink.split(({ operationType }) => operationType === 'subscription', new GraphQLWsLink(ws), http),
      cache: new InMemoryCache(),
    });
    try {
      const regions = await client.query<{ regions: { id: string }[] }>({ query: gql(REGIONS) });
      expect(regions.data?.regions.length).toBeGreaterThan(0);
      const event = await firstEvent<any>(sandbox, (onEvent) => {
        const sub = client.subscribe({ query: gql(FUNDS_CHANGED) }).subscribe({ next: (r) => r.data && onEvent(r.data) });
        return () => sub.unsubscribe();
      });
      expect(event.fundsChanged.funds.balances.length).toBeGreaterThan(0);
    } finally {
      await ws.dispose();
    }
  });

  it('graphql-ws: the key in the connection_init payload', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const client = createWsClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${KEY}` },
    });
    try {
      const event = await firstEvent<any>(sandbox, (onEvent) =>
        client.subscribe({ query: FUNDS_CHANGED }, { next: (r) => r.data && onEvent(r.data), error: () => undefined, complete: () => undefined }),
      );
      expect(event.fundsChanged.funds.balances.length).toBeGreaterThan(0);
    } finally {
      await client.dispose();
    }
  });

  it('graphql-sse: the key as a header', async ({ gateway, sandbox }) => {
    const url = await gateway.listen();
    const client = createSseClient({ url: `${url}/graphql`, headers: { authorization: `Bearer ${KEY}` } });
    try {
      const event = await firstEvent<any>(sandbox, (onEvent) =>
        client.subscribe({ query: FUNDS_CHANGED }, { next: (r) => r.data && onEvent(r.data), error: () => undefined, complete: () => undefined }),
      );
      expect(event.fundsChanged.funds.balances.length).toBeGreaterThan(0);
    } finally {
      client.dispose();
    }
  });

  it('graphql-request', async ({ gateway }) => {
    const url = await gateway.listen();
    const client = new GraphQLClient(`${url}/graphql`, { headers: { authorization: `Bearer ${KEY}` } });
    const data = await client.request<{ regions: { id: string }[] }>(REGIONS);
    expect(data.regions.length).toBeGreaterThan(0);
  });
});
