import { describe, expect } from 'vitest';
import { it } from '../support/test.js';

// Ids, uuids, refs and codes become one path segment of an upstream URL. A lone surrogate cannot be
// percent-encoded at all, and `.`, `..` or slashes change which resource the path names: all are refused as
// bad input before any upstream call, on every argument that ends up in a path.

const LONE_SURROGATE = 'order-\uD800-x';
const BAD = [LONE_SURROGATE, '.', '..', 'a/b', '..\\x', 'tab\there', 'x'.repeat(4_097)];

// Variables, as real clients send them (a lone surrogate cannot even be written in a GraphQL string literal).
const READS: [string, string, (v: string) => unknown][] = [
  ['campaign(ref)', 'query($v: ID!) { campaign(ref: $v) { uuid } }', (v) => v],
  ['campaigns(refs)', 'query($v: [ID!]!) { campaigns(refs: $v) { uuid } }', (v) => ['ok-ref', v]],
  ['gift(uuid)', 'query($v: ID!) { gift(uuid: $v) { uuid } }', (v) => v],
  ['brand(code)', 'query($v: String!) { brand(code: $v) { name } }', (v) => v],
  ['node(id) of a gift', 'query($v: ID!) { node(id: $v) { nodeId } }', (v) => Buffer.from(`Gift:${v}`).toString('base64')],
  ['cancelCampaign(ref)', 'mutation($v: ID!) { cancelCampaign(ref: $v) { __typename } }', (v) => v],
  ['cancelGift(uuid)', 'mutation($v: ID!) { cancelGift(uuid: $v) { __typename } }', (v) => v],
  ['resendGift(uuid)', 'mutation($v: ID!) { resendGift(uuid: $v) { __typename } }', (v) => v],
];

describe('ill-formed ids and refs', () => {
  it.for(READS)('%s: refused as BAD_USER_INPUT, nothing sent upstream', async ([name, query, variable], { gateway }) => {
    // A node id is base64 of UTF-8, which cannot carry a lone surrogate (it decodes to U+FFFD, harmless).
    for (const value of name.startsWith('node') ? BAD.filter((v) => v !== LONE_SURROGATE) : BAD) {
      await gateway.upstreamDelta();
      const res = await gateway.gql(query, { v: variable(value) });
      expect(res.body.errors?.[0]?.extensions?.code, `${JSON.stringify(value).slice(0, 40)}: ${res.text.slice(0, 300)}`).toBe('BAD_USER_INPUT');
      expect(await gateway.upstreamDelta(), JSON.stringify(value).slice(0, 40)).toEqual({});
    }
  });

  it('a create whose id holds a lone surrogate is a ValidationError and creates nothing', async ({ gateway }) => {
    const before = await gateway.sandbox.control.stats();
    const res = await gateway.gql(
      `mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { __typename ... on ValidationError { issues { path message } } } }`,
      { input: { id: LONE_SURROGATE, priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, contacts: [{ email: 'ada@example.com' }] } },
    );
    expect(res.body.data.createCampaign.__typename, res.text).toBe('ValidationError');
    expect(res.body.data.createCampaign.issues[0].path).toEqual(['input', 'id']);
    const after = await gateway.sandbox.control.stats();
    expect(after.creates).toEqual(before.creates);
  });

  it('more than 100 refs are refused before any lookup', async ({ gateway }) => {
    await gateway.upstreamDelta();
    const refs = Array.from({ length: 101 }, (_, i) => `r${i}`);
    const res = await gateway.gql('query($v: [ID!]!) { campaigns(refs: $v) { uuid } }', { v: refs });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(await gateway.upstreamDelta()).toEqual({});
  });
});
