import { describe, expect } from 'vitest';
import { createEmailOrder, uniqueId } from '../support/fixtures.js';
import type { InProcessGateway } from '../support/gateway.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { testWith } from '../support/test.js';

// A document runs interpreted (graphql-js) on its first execution and compiled (graphql-jit) from its second
// (src/ops/use-compiled-execution.ts). Whatever the operation, the compiled answer must be the interpreted one
// byte for byte: data, nulls, error paths and codes, union members, variable errors.

const logs: string[] = [];

// Lifetime: the file. An order of two rewards over two brands.
const it = testWith({
  env: { LOG_LEVEL: 'debug', UPSTREAM_RETRY_ATTEMPTS: '1', CATALOG_CACHE_TTL_MS: '0' },
  logTo: { write: (line: string) => void logs.push(line) },
}).extend('order', { scope: 'file' }, ({ sandbox }) => createEmailOrder(sandbox, { recipients: 2, brandCodes: ['sbxcoffeeus', 'sbxbooksus'] }));
it.afterEach(async ({ sandbox }) => {
  await sandbox.control.clearFaults();
});

/** Runs the operation three times and returns the answers' statuses and texts: interpreted, then compiled twice. */
async function threeRuns(gateway: InProcessGateway, query: string, variables: () => Record<string, unknown>): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { status, text } = await gateway.gql(query, variables());
    answers.push(`${status} ${text}`);
  }
  return answers;
}

const body = (answer: string) => JSON.parse(answer.slice(answer.indexOf(' ') + 1));

function compiledLines(): string[] {
  return logs.filter((line) => line.includes('operation compiled'));
}

const NESTED = `query Nested($refs: [ID!]!, $withBrands: Boolean!, $skipStatus: Boolean = false) {
  campaigns(refs: $refs) {
    __typename
    ...Header
    first: gifts(first: 2) { totalCount edges { node { uuid status @skip(if: $skipStatus) priceInCents brand @include(if: $withBrands) { name brandCode } } } }
  }
}
fragment Header on Campaign { id uuid status deliveryType brandCodes expiry expiresAt fees { totalInCents } }`;

describe('compiled execution answers as the interpreter does', () => {
  it('a nested read with fragments, aliases, directives, defaults and an unknown ref', async ({ gateway, order }) => {
    const before = compiledLines().length;
    const [interpreted, ...compiled] = await threeRuns(gateway, NESTED, () => ({ refs: [order.id, order.uuid, 'no-such-order'], withBrands: true }));
    expect(body(interpreted!).errors).toBeUndefined();
    expect(body(interpreted!).data.campaigns[2]).toBeNull();
    expect(compiled).toEqual([interpreted, interpreted]);
    // Compiled once, on the second run.
    expect(compiledLines().length - before).toBe(1);
  });

  it('a nested failure: the same null, path and code', async ({ gateway, sandbox, order }) => {
    await sandbox.control.fault({ route: 'GET /gifts', status: 503, rate: 1 });
    const [interpreted, ...compiled] = await threeRuns(gateway, NESTED, () => ({ refs: [order.id], withBrands: false, skipStatus: true }));
    expect(body(interpreted!).errors[0]).toMatchObject({ path: ['campaigns', 0, 'first'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(compiled).toEqual([interpreted, interpreted]);
  });

  it('an error a resolver throws as a GraphQLError: the same message, locations, path and order of keys', async ({ gateway, order }) => {
    const query =
      'query($refs: [ID!]!) { campaigns(refs: $refs) { ...Page } } fragment Page on Campaign { id page: gifts(first: -1) { totalCount } }';
    const [interpreted, ...compiled] = await threeRuns(gateway, query, () => ({ refs: [order.id] }));
    expect(body(interpreted!).errors[0]).toMatchObject({
      path: ['campaigns', 0, 'page'],
      locations: [{ line: 1, column: 92 }],
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(compiled).toEqual([interpreted, interpreted]);
  });

  it('a mutation result union: the same member and fields', async ({ gateway }) => {
    const create = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) {
      __typename
      ... on ValidationError { message issues { path message } }
      ... on CreateCampaignPayload { campaign { id } }
    } }`;
    const input = () => ({
      input: { id: uniqueId('jit'), priceInCents: -5, reward: { brand: 'sbxcoffeeus' }, contacts: [{ email: 'ada@example.com' }] },
    });
    const [interpreted, ...compiled] = await threeRuns(gateway, create, input);
    expect(body(interpreted!).data.createCampaign.__typename).toBe('ValidationError');
    expect(compiled).toEqual([interpreted, interpreted]);
  });

  it('variables the schema refuses: the same errors, @oneOf and scalar messages included, and nothing sent upstream', async ({ gateway }) => {
    const add = `mutation($input: AddFundsInput!) { addFunds(input: $input) { __typename } }`;
    const create = `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename } }`;
    const read = `query($ref: ID!) { campaign(ref: $ref) { id } }`;
    const cases: [string, () => Record<string, unknown>, RegExp][] = [
      // Refused before anything is sent, so one id serves all three runs (the messages quote the value).
      [add, () => ({ input: { id: 'jit-topup', amountInCents: 30_000.5, currency: 'USD' } }), /SafeInt cannot represent non-integer value/],
      [
        create,
        () => ({ input: { id: 'jit-order', priceInCents: 1000, reward: { brand: 'sbxcoffeeus', region: 'USA' }, contacts: [] } }),
        /exactly one key/i,
      ],
      [read, () => ({ ref: { not: 'an id' } }), /\$ref/],
    ];
    await gateway.upstreamDelta();
    for (const [query, variables, message] of cases) {
      const [interpreted, ...compiled] = await threeRuns(gateway, query, variables);
      const answer = body(interpreted!);
      expect(answer.data ?? null).toBeNull();
      expect(answer.errors[0].message).toMatch(message);
      expect(compiled).toEqual([interpreted, interpreted]);
    }
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('variables inside literal input values: a null is refused as graphql-js refuses it, and nothing is sent upstream', async ({ gateway }) => {
    const links = `mutation($id: ID!, $reward: RewardChoice = { brand: "sbxcoffeeus" }) {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: 1, reward: $reward }) { __typename } }`;
    const brands = `mutation($id: ID!, $second: String = "sbxbooksus") {
      createDirectLinks(input: { id: $id, priceInCents: 1000, linkCount: 1, reward: { brands: ["sbxcoffeeus", $second] } }) { __typename } }`;
    const read = 'query($ref: ID = "no-such-order") { campaign(ref: $ref) { id } campaigns(refs: [$ref]) { id } }';
    const cases: [string, () => Record<string, unknown>, RegExp][] = [
      // Refused before anything is sent, so one id serves all three runs.
      [links, () => ({ id: 'jit-links', reward: null }), /Argument "input" has invalid value/],
      [brands, () => ({ id: 'jit-brands', second: null }), /Argument "input" has invalid value/],
      [read, () => ({ ref: null }), /Argument "ref" of non-null type "ID!" must not be null/],
    ];
    await gateway.upstreamDelta();
    for (const [query, variables, message] of cases) {
      const [interpreted, ...compiled] = await threeRuns(gateway, query, variables);
      expect(body(interpreted!).errors[0].message).toMatch(message);
      expect(compiled).toEqual([interpreted, interpreted]);
    }
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('fields answer in the order the document asks for them, whichever resolves first', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /funds', latency_ms: 50, rate: 1 });
    const [interpreted, ...compiled] = await threeRuns(gateway, '{ funds { balances { currency } } viewer { username } }', () => ({}));
    expect(Object.keys(body(interpreted!).data)).toEqual(['funds', 'viewer']);
    expect(compiled).toEqual([interpreted, interpreted]);
  });

  it('errors are listed in the order of the document, whichever failed first', async ({ gateway, sandbox }) => {
    await sandbox.control.fault({ route: 'GET /ping', status: 503, latency_ms: 50, rate: 1 });
    await sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1 });
    const [interpreted, ...compiled] = await threeRuns(gateway, '{ viewer { username } funds { balances { currency } } }', () => ({}));
    expect(body(interpreted!).errors.map((e: { path: string[] }) => e.path[0])).toEqual(['viewer', 'funds']);
    expect(compiled).toEqual([interpreted, interpreted]);
  });

  it('a mutation stops at a root field that failed, compiled too: the next one is never sent', async ({ gateway, sandbox, order }) => {
    const gift = (await sandbox.api('GET', `/gifts?campaign_id=${order.id}`)).body.gifts[0].uuid;
    const query = `mutation($ref: ID!, $gift: ID!) {
      first: cancelCampaign(ref: $ref) { __typename }
      second: cancelGift(uuid: $gift) { __typename } }`;
    await gateway.upstreamDelta();
    const [interpreted, ...compiled] = await threeRuns(gateway, query, () => ({ ref: '', gift }));
    expect(body(interpreted!)).toMatchObject({ data: null, errors: [{ path: ['first'], extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(compiled).toEqual([interpreted, interpreted]);
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('a custom scalar default reaches the resolver as the scalar reads it (a DateTime as a Date), compiled too', async ({ gateway }) => {
    // What the gift list resolver hands the upstream client, on every run.
    const client = Object.getPrototypeOf(gateway.client) as { listGifts(query: Record<string, unknown>, ...rest: unknown[]): unknown };
    const original = client.listGifts;
    const seen: unknown[] = [];
    client.listGifts = function (this: unknown, query, ...rest) {
      seen.push(query.createdDateGreaterThan);
      return original.call(this, query, ...rest);
    };
    try {
      const query = 'query($since: DateTime = "2001-01-01T00:00:00Z") { gifts(first: 3, filter: { createdDateGreaterThan: $since }) { totalCount } }';
      const [interpreted, ...compiled] = await threeRuns(gateway, query, () => ({}));
      expect(compiled).toEqual([interpreted, interpreted]);
    } finally {
      client.listGifts = original;
    }
    expect(seen).toHaveLength(3);
    for (const since of seen) expect(since).toEqual(new Date('2001-01-01T00:00:00Z'));
  });

  // graphql-jit passes a subscription's variables where its arguments belong: compiled, `campaign` was lost and
  // this subscribed to the whole account instead of answering NOT_FOUND (the variable's name differs on purpose).
  it('a subscription refused by its resolver: the same error every time, over WebSocket', async ({ gateway }) => {
    const client = wsClient(await gateway.listen());
    try {
      const answers: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const stream = subscribeWs(client, 'subscription($ref: ID) { giftStatusChanged(campaign: $ref) { cursor } }', { ref: 'no-such-order' });
        answers.push(await stream.next());
        stream.onClose();
      }
      expect((answers[0] as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('NOT_FOUND');
      expect(answers.slice(1)).toEqual([answers[0], answers[0]]);
    } finally {
      await client.dispose();
    }
  });
});
