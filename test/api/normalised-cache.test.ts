import { InMemoryCache, gql, type DocumentNode } from '@apollo/client';
import { print } from 'graphql';
import { describe, expect } from 'vitest';
import { apolloTypePolicies } from '../../operations/cache-policies.js';
import { createEmailOrder } from '../support/fixtures.js';
import type { InProcessGateway } from '../support/gateway.js';
import { test } from '../support/test.js';

// A client's normalised cache keeps one Gift per uuid across queries: Apollo Client's InMemoryCache with the
// documented type policies, fed by real gateway answers (no Apollo network layer involved).

// Lifetime: the file. An order of two rewards, made straight through the sandbox.
const it = test.extend('order', { scope: 'file' }, ({ sandbox }) => createEmailOrder(sandbox, { recipients: 2 }));

const DASHBOARD = gql`
  query Dashboard($ref: ID!) {
    campaign(ref: $ref) {
      uuid
      status
      gifts(first: 5) {
        edges {
          node {
            uuid
            status
            deliveryStatus
          }
        }
      }
    }
  }
`;
const ONE_GIFT = gql`
  query OneGift($uuid: ID!) {
    gift(uuid: $uuid) {
      uuid
      status
      deliveryStatus
      brand {
        brandCode
        name
      }
      campaign {
        uuid
        status
      }
    }
  }
`;

/** Runs a query against the gateway as the cache will see it (with __typename), and writes the answer in. */
async function fetchInto(gateway: InProcessGateway, cache: InMemoryCache, query: DocumentNode, variables: Record<string, unknown>) {
  const { body } = await gateway.gql(print(cache.transformDocument(query)), variables);
  expect(body.errors).toBeUndefined();
  cache.writeQuery({ query, variables, data: body.data });
}

const giftKeys = (cache: InMemoryCache) => Object.keys(cache.extract()).filter((key) => key.startsWith('Gift:'));

describe('Apollo InMemoryCache with the documented type policies', () => {
  it('keeps one Gift per uuid across two queries, so an update seen by one shows in the other', async ({ gateway, sandbox, order }) => {
    const cache = new InMemoryCache({ typePolicies: apolloTypePolicies });
    await fetchInto(gateway, cache, DASHBOARD, { ref: order.id });
    const listed = cache.readQuery<any>({ query: DASHBOARD, variables: { ref: order.id } })!.campaign.gifts.edges;
    expect(listed).toHaveLength(2);
    const target = listed[0].node.uuid as string;
    expect(listed[0].node.status).toBe('SENT_AND_REDEEMABLE');

    await sandbox.control.redeem(target);
    await fetchInto(gateway, cache, ONE_GIFT, { uuid: target });

    expect(giftKeys(cache).sort()).toEqual(listed.map((e: any) => `Gift:{"uuid":"${e.node.uuid}"}`).sort());
    expect(Object.keys(cache.extract()).filter((key) => key.startsWith('Campaign:'))).toEqual([`Campaign:{"uuid":"${order.uuid}"}`]);
    const again = cache.readQuery<any>({ query: DASHBOARD, variables: { ref: order.id } })!.campaign.gifts.edges;
    expect(again.find((e: any) => e.node.uuid === target).node.status).toBe('REDEEMED');
  });

  it('without them a Gift is not normalised and the list goes stale (why the policies are needed)', async ({ gateway, sandbox }) => {
    const cache = new InMemoryCache();
    const other = await createEmailOrder(sandbox, { recipients: 1 });
    await fetchInto(gateway, cache, DASHBOARD, { ref: other.id });
    const target = cache.readQuery<any>({ query: DASHBOARD, variables: { ref: other.id } })!.campaign.gifts.edges[0].node.uuid;
    await sandbox.control.redeem(target);
    await fetchInto(gateway, cache, ONE_GIFT, { uuid: target });
    expect(giftKeys(cache)).toEqual([]);
    const stale = cache.readQuery<any>({ query: DASHBOARD, variables: { ref: other.id } })!.campaign.gifts.edges[0].node;
    expect(stale.status).toBe('SENT_AND_REDEEMABLE');
  });
});
