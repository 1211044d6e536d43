import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { createTestGateway } from '../support/gateway.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { testWith } from '../support/test.js';
import { bearer, KEYS, KEYS_ENV } from './keys.js';

// One access pipeline: every rule refuses alike over every transport, with the same code and the same
// message, because every transport runs the same plugin list (src/security/access-pipeline.ts).

interface Refusal {
  message: string;
  code: unknown;
}

type Transport = (url: string, query: string) => Promise<Refusal[]>;

const AUTHORIZATION = bearer(KEYS.reader).authorization;

const refusals = (errors: { message: string; extensions?: { code?: unknown } }[] | undefined): Refusal[] =>
  (errors ?? []).map((e) => ({ message: e.message, code: e.extensions?.code }));

const TRANSPORTS: Record<string, Transport> = {
  async POST(url, query) {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: AUTHORIZATION },
      body: JSON.stringify({ query }),
    });
    return refusals((await res.json()).errors);
  },
  async GET(url, query) {
    const res = await fetch(`${url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: 'application/graphql-response+json', authorization: AUTHORIZATION },
    });
    return refusals((await res.json()).errors);
  },
  async SSE(url, query) {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: AUTHORIZATION },
      body: JSON.stringify({ query }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // A query's stream is one `next` event and `complete`.
    const data = (await res.text()).split('\n').find((line) => line.startsWith('data:') && line.length > 'data:'.length + 1);
    return refusals(JSON.parse(data!.slice('data:'.length)).errors);
  },
  async WebSocket(url, query) {
    const client = wsClient(url, { connectionParams: { authorization: AUTHORIZATION } });
    try {
      const stream = subscribeWs(client, query);
      await stream.ended;
      // A refusal before execution is an `error` message (the errors themselves), after it a `next` result.
      return Array.isArray(stream.error) ? refusals(stream.error) : refusals(stream.received[0]?.errors);
    } finally {
      await client.dispose();
    }
  },
};

const deep = '{ gifts { edges { node { campaign { uuid } } } } }';
const RULES: { rule: string; gateway: 'production' | 'trusted'; query: string; code: string }[] = [
  { rule: 'missing scope', gateway: 'production', query: '{ funds { balances { currency } } }', code: 'FORBIDDEN' },
  { rule: 'depth', gateway: 'production', query: deep, code: 'DEPTH_LIMIT_EXCEEDED' },
  { rule: 'aliases', gateway: 'production', query: '{ a: regions { id } b: regions { id } c: regions { id } }', code: 'ALIAS_LIMIT_EXCEEDED' },
  { rule: 'cost', gateway: 'production', query: '{ gifts(first: 100) { edges { node { uuid } } } }', code: 'COST_LIMIT_EXCEEDED' },
  { rule: 'unknown field', gateway: 'production', query: '{ regionz { id } }', code: 'GRAPHQL_VALIDATION_FAILED' },
  { rule: 'untrusted document', gateway: 'trusted', query: '{ viewer { username } }', code: 'PERSISTED_QUERY_ONLY' },
  { rule: 'introspection in production', gateway: 'production', query: '{ __schema { queryType { name } } }', code: 'GRAPHQL_VALIDATION_FAILED' },
];

// Two gateways, both listening: the file's, in production mode with tight limits, and one in trusted-documents
// mode over the same sandbox (every rule here refuses before any upstream call).
const it = testWith({
  env: {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    REWARD_API_URL: 'http://127.0.0.1:9/papi/v1',
    REWARD_API_TOKEN: 'unused',
    ...KEYS_ENV,
    MAX_DEPTH: '4',
    MAX_ALIASES: '2',
    MAX_COST: '50',
  },
}).extend('trusted', { scope: 'file' }, async ({ sandbox }, { onCleanup }) => {
  const trusted = createTestGateway(sandbox, {
    env: { ...KEYS_ENV, TRUSTED_DOCUMENTS: fileURLToPath(new URL('../../operations/__generated__/persisted-documents.json', import.meta.url)) },
  });
  onCleanup(() => trusted.close());
  return trusted;
});

describe.each(RULES)('$rule', ({ gateway, query, code }) => {
  it('is refused with the same code and message over POST, GET, SSE and WebSocket', async ({ gateway: production, trusted }) => {
    const url = await { production, trusted }[gateway].listen();
    const seen: Record<string, Refusal[]> = {};
    for (const [name, send] of Object.entries(TRANSPORTS)) seen[name] = await send(url, query);
    expect(seen.POST!.length).toBeGreaterThan(0);
    for (const refusal of seen.POST!) expect(refusal.code).toBe(code);
    for (const name of Object.keys(TRANSPORTS)) expect(seen[name], name).toEqual(seen.POST);
  });
});
