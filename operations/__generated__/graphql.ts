/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type BrandFilter = {
  currency?: string | null | undefined;
  embeddable?: boolean | null | undefined;
  maxPriceInCents?: number | null | undefined;
  minPriceInCents?: number | null | undefined;
  /** Region name (e.g. "USA", case-insensitive) or numeric id. */
  region?: string | null | undefined;
  search?: string | null | undefined;
};

/** Processing state of an order as a whole, not of its rewards: CREATING while the reward API is still setting the order up (it may have sent some rewards already, so an order CREATING with rewards DELIVERED is normal), AWAITING_FUNDS until the balance covers it, CREATED once every reward exists. Each reward says where it is in `Gift.status` and `Gift.deliveryStatus`. */
export type CampaignStatus =
  | 'AWAITING_FUNDS'
  | 'CREATED'
  | 'CREATING'
  | 'UNKNOWN';

/** Delivery status of one reward: whether its email reached the recipient (DELIVERED) or its link exists (LINK_CREATED). It is independent of the order: a reward may be DELIVERED while its order is still CREATING (`CampaignStatus`). */
export type DeliveryStatus =
  | 'COMPLAINT'
  | 'DELIVERED'
  | 'LINK_CREATED'
  | 'TEMPORARILY_UNDELIVERABLE'
  | 'UNDELIVERABLE'
  | 'UNKNOWN'
  | 'UNSENT'
  | 'UNSUBSCRIBED';

/** How rewards of an order reach recipients. */
export type DeliveryType =
  | 'DIRECT_LINK'
  | 'EMAIL'
  | 'EMBEDDED'
  | 'SHORTLINK'
  | 'UNKNOWN';

/** Claim status of one reward. */
export type GiftStatus =
  | 'CANCELLED'
  | 'EXPIRED'
  | 'REDEEMED'
  | 'SENT_AND_REDEEMABLE'
  | 'UNKNOWN';

export type BrandPickerQueryVariables = Exact<{
  filter?: BrandFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type BrandPickerQuery = { brands: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { brandCode: string, name: string, imageUrl: string | null, currency: string | null, priceOptions:
          | { __typename: 'FixedPrices', valuesInCents: Array<number> }
          | { __typename: 'PriceRange', minInCents: number, maxInCents: number }
         | null } }> } | null, regions: Array<{ id: number, name: string }> | null };

export type CampaignDashboardQueryVariables = Exact<{
  refs: Array<string | number> | string | number;
  giftsPerCampaign?: number | null | undefined;
}>;


export type CampaignDashboardQuery = { campaigns: Array<{ id: string, uuid: string, status: CampaignStatus, deliveryType: DeliveryType, priceInCents: number, currency: string | null, expiresAt: string | null, fees: { totalInCents: number } | null, gifts: { totalCount: number, edges: Array<{ node: { uuid: string, status: GiftStatus, deliveryStatus: DeliveryStatus, recipientEmail: string | null, redeliveryCount: number, expiresAt: string | null, campaign: { uuid: string } | null, brand: { brandCode: string, name: string } | null } }> } | null } | null> };

export type FundsWidgetQueryVariables = Exact<{ [key: string]: never; }>;


export type FundsWidgetQuery = { viewer: { displayName: string } | null, funds: { balances: Array<{ currency: string, availableInCents: number, pendingInCents: number, reservedInCents: number }> } | null };


export const BrandPickerDocument = {"__meta__":{"hash":"sha256:66d42a398c97cb548c0828c3bc349983ad524788818b5698fd5ffb628e19a9b8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BrandPicker"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"BrandFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"brands"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"brandCode"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"imageUrl"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"priceOptions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"FixedPrices"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"valuesInCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PriceRange"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"minInCents"}},{"kind":"Field","name":{"kind":"Name","value":"maxInCents"}}]}}]}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"regions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]} as unknown as DocumentNode<BrandPickerQuery, BrandPickerQueryVariables>;
export const CampaignDashboardDocument = {"__meta__":{"hash":"sha256:9e98e473aa670dcaca0174d4dfacdf2ba2b53e1e42bc3efebda8237f3ef0def8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CampaignDashboard"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"refs"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"giftsPerCampaign"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"campaigns"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"refs"},"value":{"kind":"Variable","name":{"kind":"Name","value":"refs"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryType"}},{"kind":"Field","name":{"kind":"Name","value":"priceInCents"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"fees"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalInCents"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gifts"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"giftsPerCampaign"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryStatus"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}},{"kind":"Field","name":{"kind":"Name","value":"redeliveryCount"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"campaign"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"brand"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"brandCode"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<CampaignDashboardQuery, CampaignDashboardQueryVariables>;
export const FundsWidgetDocument = {"__meta__":{"hash":"sha256:a78e9cdbe41c0a2582797078233284fdba349726390d3f19e3bb27a9344a276b"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"FundsWidget"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"displayName"}}]}},{"kind":"Field","name":{"kind":"Name","value":"funds"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"balances"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"availableInCents"}},{"kind":"Field","name":{"kind":"Name","value":"pendingInCents"}},{"kind":"Field","name":{"kind":"Name","value":"reservedInCents"}}]}}]}}]}}]} as unknown as DocumentNode<FundsWidgetQuery, FundsWidgetQueryVariables>;