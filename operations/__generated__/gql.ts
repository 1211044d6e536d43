/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query BrandPicker($filter: BrandFilter, $first: Int = 20, $after: String) {\n  brands(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        brandCode\n        name\n        imageUrl\n        currency\n        priceOptions {\n          __typename\n          ... on FixedPrices {\n            valuesInCents\n          }\n          ... on PriceRange {\n            minInCents\n            maxInCents\n          }\n        }\n      }\n    }\n  }\n  regions {\n    id\n    name\n  }\n}": typeof types.BrandPickerDocument,
    "query CampaignDashboard($refs: [ID!]!, $giftsPerCampaign: Int = 20) {\n  campaigns(refs: $refs) {\n    id\n    uuid\n    status\n    deliveryType\n    priceInCents\n    currency\n    expiresAt\n    fees {\n      totalInCents\n    }\n    gifts(first: $giftsPerCampaign) {\n      totalCount\n      edges {\n        node {\n          uuid\n          status\n          deliveryStatus\n          recipientEmail\n          redeliveryCount\n          expiresAt\n          campaign {\n            uuid\n          }\n          brand {\n            brandCode\n            name\n          }\n        }\n      }\n    }\n  }\n}": typeof types.CampaignDashboardDocument,
    "query FundsWidget {\n  viewer {\n    displayName\n  }\n  funds {\n    balances {\n      currency\n      availableInCents\n      pendingInCents\n      reservedInCents\n    }\n  }\n}": typeof types.FundsWidgetDocument,
};
const documents: Documents = {
    "query BrandPicker($filter: BrandFilter, $first: Int = 20, $after: String) {\n  brands(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        brandCode\n        name\n        imageUrl\n        currency\n        priceOptions {\n          __typename\n          ... on FixedPrices {\n            valuesInCents\n          }\n          ... on PriceRange {\n            minInCents\n            maxInCents\n          }\n        }\n      }\n    }\n  }\n  regions {\n    id\n    name\n  }\n}": types.BrandPickerDocument,
    "query CampaignDashboard($refs: [ID!]!, $giftsPerCampaign: Int = 20) {\n  campaigns(refs: $refs) {\n    id\n    uuid\n    status\n    deliveryType\n    priceInCents\n    currency\n    expiresAt\n    fees {\n      totalInCents\n    }\n    gifts(first: $giftsPerCampaign) {\n      totalCount\n      edges {\n        node {\n          uuid\n          status\n          deliveryStatus\n          recipientEmail\n          redeliveryCount\n          expiresAt\n          campaign {\n            uuid\n          }\n          brand {\n            brandCode\n            name\n          }\n        }\n      }\n    }\n  }\n}": types.CampaignDashboardDocument,
    "query FundsWidget {\n  viewer {\n    displayName\n  }\n  funds {\n    balances {\n      currency\n      availableInCents\n      pendingInCents\n      reservedInCents\n    }\n  }\n}": types.FundsWidgetDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BrandPicker($filter: BrandFilter, $first: Int = 20, $after: String) {\n  brands(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        brandCode\n        name\n        imageUrl\n        currency\n        priceOptions {\n          __typename\n          ... on FixedPrices {\n            valuesInCents\n          }\n          ... on PriceRange {\n            minInCents\n            maxInCents\n          }\n        }\n      }\n    }\n  }\n  regions {\n    id\n    name\n  }\n}"): (typeof documents)["query BrandPicker($filter: BrandFilter, $first: Int = 20, $after: String) {\n  brands(filter: $filter, first: $first, after: $after) {\n    totalCount\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        brandCode\n        name\n        imageUrl\n        currency\n        priceOptions {\n          __typename\n          ... on FixedPrices {\n            valuesInCents\n          }\n          ... on PriceRange {\n            minInCents\n            maxInCents\n          }\n        }\n      }\n    }\n  }\n  regions {\n    id\n    name\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query CampaignDashboard($refs: [ID!]!, $giftsPerCampaign: Int = 20) {\n  campaigns(refs: $refs) {\n    id\n    uuid\n    status\n    deliveryType\n    priceInCents\n    currency\n    expiresAt\n    fees {\n      totalInCents\n    }\n    gifts(first: $giftsPerCampaign) {\n      totalCount\n      edges {\n        node {\n          uuid\n          status\n          deliveryStatus\n          recipientEmail\n          redeliveryCount\n          expiresAt\n          campaign {\n            uuid\n          }\n          brand {\n            brandCode\n            name\n          }\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query CampaignDashboard($refs: [ID!]!, $giftsPerCampaign: Int = 20) {\n  campaigns(refs: $refs) {\n    id\n    uuid\n    status\n    deliveryType\n    priceInCents\n    currency\n    expiresAt\n    fees {\n      totalInCents\n    }\n    gifts(first: $giftsPerCampaign) {\n      totalCount\n      edges {\n        node {\n          uuid\n          status\n          deliveryStatus\n          recipientEmail\n          redeliveryCount\n          expiresAt\n          campaign {\n            uuid\n          }\n          brand {\n            brandCode\n            name\n          }\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query FundsWidget {\n  viewer {\n    displayName\n  }\n  funds {\n    balances {\n      currency\n      availableInCents\n      pendingInCents\n      reservedInCents\n    }\n  }\n}"): (typeof documents)["query FundsWidget {\n  viewer {\n    displayName\n  }\n  funds {\n    balances {\n      currency\n      availableInCents\n      pendingInCents\n      reservedInCents\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;