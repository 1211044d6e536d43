import { describe, expect } from 'vitest';
import { testWith } from '../support/test.js';

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

/** The JSON bodies of a multipart/mixed answer, in order. */
function multipartParts(text: string): any[] {
  return text
    .split(/\r?\n---/)
    .map((part) => part.slice(part.indexOf('{')))
    .filter((part) => part.startsWith('{'))
    .map((part) => JSON.parse(part.slice(0, part.lastIndexOf('}') + 1)));
}

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
