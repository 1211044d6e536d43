import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';
import { multipartParts } from '../support/multipart.js';

// @defer and @stream over multipart/mixed and SSE: a campaign's header arrives before its rewards. Documents
// using them never run compiled (graphql-jit cannot deliver in parts), and the reads of deferred parts are
// batched as they would be without @defer.

const it = testWith({ env: { COMPILE_AFTER_RUNS: '1' } });

const CREATE = `mutation ($id: ID!) {
  createCampaign(input: { id: $id, priceInCents: 1000, reward: { brand: "sbxcoffeeus" },
    contacts: [{ email: "ada@example.com" }, { email: "bob@example.com" }], subject: "Thanks", message: "Thanks" }) {
    __typename ... on CreateCampaignPayload { campaign { uuid } }
  }
}`;

const campaigns = (defer: boolean) => `query ($refs: [ID!]!) {
  campaigns(refs: $refs) {
    uuid status
    ... ${defer ? '@defer(label: "rewards")' : ''} { gifts { edges { node { uuid status brand { name } } } } }
  }
}`;

describe('@defer and @stream', () => {
  let refs: string[] = [];
  it.beforeAll(async ({ gateway }) => {
    refs = [];
    for (const n of [1, 2, 3]) {
      const made = await gateway.gql(CREATE, { id: `defer-${Date.now()}-${n}` });
      refs.push(made.body.data.createCampaign.campaign.uuid);
    }
  });

  it('sends the campaign headers first and their rewards in a later part (multipart/mixed), every time', async ({ gateway }) => {
    // Three runs: from the second on, a document without @defer would run compiled.
    for (let run = 0; run < 3; run++) {
      const res = await gateway.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
        body: JSON.stringify({ query: campaigns(true), variables: { refs } }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed/);
      const [initial, ...later] = multipartParts(await res.text());
      expect(initial.hasNext).toBe(true);
      expect(initial.data.campaigns.map((c: any) => c.uuid)).toEqual(refs);
      expect(initial.data.campaigns[0].gifts).toBeUndefined();
      const incremental = later.flatMap((part) => part.incremental ?? []);
      expect(incremental.map((i: any) => i.label)).toEqual(['rewards', 'rewards', 'rewards']);
      expect(incremental[0].data.gifts.edges).toHaveLength(2);
      expect(later.at(-1).hasNext).toBe(false);
    }
  });

  it('reads upstream no more with @defer than without: deferred parts share the operation loaders', async ({ gateway }) => {
    await gateway.upstreamDelta();
    await gateway.gql(campaigns(false), { refs });
    const plain = await gateway.upstreamDelta();
    expect(Object.keys(plain).length).toBeGreaterThan(0);
    const res = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: campaigns(true), variables: { refs } }),
    });
    await res.text();
    expect(await gateway.upstreamDelta()).toEqual(plain);
  });

  it('streams a list over SSE', async ({ gateway }) => {
    const query = `{ regions @stream(initialCount: 1) { id } }`;
    const res = await gateway.fetch(`/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.startsWith('event: next'))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
    expect(events[0].data.regions).toHaveLength(1);
    expect(events.slice(1).flatMap((e) => e.incremental ?? []).length).toBeGreaterThan(0);
  });
});

describe('@defer and @stream arguments a caller gets wrong', () => {
  const STREAM = 'query ($n: Int) { regions @stream(initialCount: $n) { id } }';
  const badCount: [string, string, Record<string, unknown>][] = [
    ['a negative literal', '{ regions @stream(initialCount: -1) { id } }', {}],
    ['a negative variable', STREAM, { n: -1 }],
    ['null', '{ regions @stream(initialCount: null) { id } }', {}],
    ['a null variable', STREAM, { n: null }],
    ["a variable's default", 'query ($n: Int = -2) { regions @stream(initialCount: $n) { id } }', {}],
    ['a fragment', 'fragment F on Query { regions @stream(initialCount: -1) { id } } query { ...F }', {}],
  ];

  it('answers BAD_USER_INPUT naming initialCount for a negative or null count, and logs no stack', async ({ gatewayWith }) => {
    const logged: string[] = [];
    const gw = await gatewayWith({ env: { LOG_LEVEL: 'warn' }, logTo: { write: (line: string) => void logged.push(line) } });
    for (const [, query, variables] of badCount) {
      for (const accept of ['multipart/mixed', 'text/event-stream', 'application/json']) {
        const res = await gw.fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ query, variables }),
        });
        const text = await res.text();
        expect(text).not.toMatch(/INTERNAL_SERVER_ERROR|Unexpected error/);
        const body = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
        expect(body.errors).toHaveLength(1);
        expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(body.errors[0].message).toMatch(/@stream\(initialCount:\) on regions: .*0 or more/);
        expect(body.data ?? null).toBeNull();
      }
    }
    // The start-up warning of keyless development only: nothing logged as an error, no stack.
    expect(logged.filter((line) => JSON.parse(line).level !== 'warn')).toEqual([]);
  });

  it('answers BAD_USER_INPUT for a null "if" of @stream or @defer, with a code', async ({ gateway }) => {
    for (const query of ['query ($f: Boolean) { regions @stream(if: $f) { id } }', 'query ($f: Boolean) { ... @defer(if: $f) { regions { id } } }']) {
      const res = await gateway.gql(query, { f: null });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors?.[0]?.message).toMatch(/@(stream|defer)\(if:\) .*true or false/);
    }
  });

  it('refuses the other misuses as validation errors of the document, each naming the rule', async ({ gateway }) => {
    const refused: [string, RegExp][] = [
      ['{ regions @stream(initialCount: "2") { id } }', /Int cannot represent non-integer value/],
      ['{ regions @stream(initialCount: 1.5) { id } }', /Int cannot represent non-integer value/],
      ['{ regions @stream(initialCount: 99999999999) { id } }', /non 32-bit signed integer/],
      ['{ a: regions @stream(label: "x") { id } b: regions @stream(label: "x") { id } }', /label argument must be unique/],
      ['query ($l: String) { regions @stream(label: $l) { id } }', /label argument must be a static string/],
      ['{ viewer @stream { username } }', /non-list field/],
    ];
    for (const [query, message] of refused) {
      const res = await gateway.gql(query, { l: 'x' }, { accept: 'application/graphql-response+json' });
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.body.errors?.[0]?.message).toMatch(message);
    }
  });

  it('streams everything at once for the largest initialCount', async ({ gateway }) => {
    const res = await gateway.gql('{ regions @stream(initialCount: 2147483647) { id } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.regions.length).toBeGreaterThan(0);
  });
});
