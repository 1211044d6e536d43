/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type AddFundsInput = {
  /** Between 25,000 and 1,000,000 cents. */
  amountInCents: number;
  /** USD, CAD or AUD. */
  currency: string;
  /** Idempotency key of this top-up. */
  id: string | number;
};

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

export type ContactInput = {
  email: string;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
};

export type CreateCampaignInput = {
  /** Recipients (email delivery only). */
  contacts?: Array<ContactInput> | null | undefined;
  /** EMAIL or SHORTLINK. Direct links: createDirectLinks; embedded: createEmbeddedReward. */
  deliveryType?: DeliveryType | null | undefined;
  /** Last claimable day (Pacific); at most one year out. Omit: never expires. */
  expiry?: string | null | undefined;
  /** Template id; supplies subject and message when they are omitted. */
  giftTemplate?: string | null | undefined;
  /** Your idempotency key: unique per order, up to 4,096 characters. */
  id: string | number;
  /** Number of short links (short-link delivery only). */
  linkCount?: number | null | undefined;
  message?: string | null | undefined;
  /** Face value of each reward. */
  priceInCents: number;
  reward: RewardChoice;
  subject?: string | null | undefined;
};

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

/** How an accepted order stands with the money behind it. Waiting for funds is not an error. */
export type FundingState =
  /** Accepted, waiting for a top-up; sent automatically once funded (oldest first). */
  | 'AWAITING_FUNDS'
  /** Paid from the available balance; rewards go out now. */
  | 'FUNDED'
  /** Accepted, waiting for pending funds to clear. */
  | 'FUNDS_PENDING';

/** Claim status of one reward. */
export type GiftStatus =
  | 'CANCELLED'
  | 'EXPIRED'
  | 'REDEEMED'
  | 'SENT_AND_REDEEMABLE'
  | 'UNKNOWN';

/** What the recipient may choose: exactly one brand, a list of brands, or a region's full catalog. */
export type RewardChoice =
  {   brand: string; brands?: never; region?: never; }
  |  { brand?: never;   brands: Array<string>; region?: never; }
  |  { brand?: never; brands?: never;   /** Region name, e.g. USA or Canada: every brand of that region at the price. */
  region: string; };

export type AddFundsMutationVariables = Exact<{
  input: AddFundsInput;
}>;


export type AddFundsMutation = { addFunds:
    | { __typename: 'AddFundsPayload', funds: { balances: Array<{ currency: string, availableInCents: number, pendingInCents: number }> } }
    | { __typename: 'IdempotencyConflict', message: string, id: string, conflictingFields: Array<string> }
    | { __typename: 'OutcomeUnknown', message: string, retrySameIdIsSafe: boolean, checkBefore: string | null }
    | { __typename: 'UpstreamRejected', message: string, code: string | null, status: number }
    | { __typename: 'UpstreamUnavailable', message: string, retryAfterSeconds: number }
    | { __typename: 'ValidationError', message: string, issues: Array<{ message: string, path: Array<string> }> }
   };

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

export type CancelRewardMutationVariables = Exact<{
  uuid: string | number;
}>;


export type CancelRewardMutation = { cancelGift:
    | { __typename: 'GiftPayload', gift: { uuid: string, status: GiftStatus, recipientEmail: string | null } }
    | { __typename: 'NotCancellable', message: string }
    | { __typename: 'NotFound', message: string, ref: string }
    | { __typename: 'OutcomeUnknown', message: string, retrySameIdIsSafe: boolean, checkBefore: string | null }
    | { __typename: 'UpstreamRejected', message: string, code: string | null, status: number }
    | { __typename: 'UpstreamUnavailable', message: string, retryAfterSeconds: number }
   };

export type CreateRewardMutationVariables = Exact<{
  input: CreateCampaignInput;
}>;


export type CreateRewardMutation = { createCampaign:
    | { __typename: 'CreateCampaignPayload', orderId: string, orderUuid: string, funding: FundingState, replayed: boolean | null, campaign: { status: CampaignStatus, priceInCents: number, currency: string | null, deliveryType: DeliveryType, fees: { totalInCents: number } | null } | null }
    | { __typename: 'IdempotencyConflict', message: string, id: string, conflictingFields: Array<string> }
    | { __typename: 'OutcomeUnknown', message: string, retrySameIdIsSafe: boolean, checkBefore: string | null }
    | { __typename: 'UpstreamRejected', message: string, code: string | null, status: number }
    | { __typename: 'UpstreamUnavailable', message: string, retryAfterSeconds: number }
    | { __typename: 'ValidationError', message: string, issues: Array<{ message: string, path: Array<string> }> }
   };

export type FindRewardsQueryVariables = Exact<{
  recipientEmail?: string | null | undefined;
  recipientName?: string | null | undefined;
  orderUuid?: string | number | null | undefined;
  status?: GiftStatus | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type FindRewardsQuery = { gifts: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { uuid: string, recipientEmail: string | null, recipientName: string | null, priceInCents: number, brandCode: string | null, status: GiftStatus, deliveryStatus: DeliveryStatus, redeliveryCount: number, createdDate: string | null, redeemedDate: string | null, expiresAt: string | null, campaignUuid: string } }> } | null };

export type FundsWidgetQueryVariables = Exact<{ [key: string]: never; }>;


export type FundsWidgetQuery = { viewer: { displayName: string } | null, funds: { balances: Array<{ currency: string, availableInCents: number, pendingInCents: number, reservedInCents: number }> } | null };

export type GetOrderQueryVariables = Exact<{
  ref: string | number;
  rewards?: number | null | undefined;
}>;


export type GetOrderQuery = { campaign: { id: string, uuid: string, status: CampaignStatus, deliveryType: DeliveryType, priceInCents: number, currency: string | null, expiresAt: string | null, fees: { totalInCents: number } | null, gifts: { totalCount: number, edges: Array<{ node: { uuid: string, recipientEmail: string | null, status: GiftStatus, deliveryStatus: DeliveryStatus } }> } | null } | null };

export type GetRewardQueryVariables = Exact<{
  uuid: string | number;
}>;


export type GetRewardQuery = { gift: { uuid: string, recipientEmail: string | null, recipientName: string | null, priceInCents: number, brandCode: string | null, status: GiftStatus, deliveryStatus: DeliveryStatus, redeliveryCount: number, createdDate: string | null, deliveryDate: string | null, redeemedDate: string | null, expiresAt: string | null, campaign: { id: string, uuid: string, status: CampaignStatus, deliveryType: DeliveryType } | null } | null };

export type ReadBalancesQueryVariables = Exact<{ [key: string]: never; }>;


export type ReadBalancesQuery = { funds: { balances: Array<{ currency: string, availableInCents: number, pendingInCents: number, reservedInCents: number }> } | null };

export type ResendRewardMutationVariables = Exact<{
  uuid: string | number;
}>;


export type ResendRewardMutation = { resendGift:
    | { __typename: 'GiftPayload', gift: { uuid: string, recipientEmail: string | null, deliveryStatus: DeliveryStatus, redeliveryCount: number } }
    | { __typename: 'NotFound', message: string, ref: string }
    | { __typename: 'OutcomeUnknown', message: string, retrySameIdIsSafe: boolean, checkBefore: string | null }
    | { __typename: 'UpstreamRejected', message: string, code: string | null, status: number }
    | { __typename: 'UpstreamUnavailable', message: string, retryAfterSeconds: number }
   };


export const AddFundsDocument = {"__meta__":{"hash":"sha256:1ebcc29cd92c7049d7393d35cef19aa2e28419b37e3060a309ca36bc9ab5a9e4"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"AddFunds"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"AddFundsInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"addFunds"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"AddFundsPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"funds"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"balances"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"availableInCents"}},{"kind":"Field","name":{"kind":"Name","value":"pendingInCents"}}]}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"IdempotencyConflict"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"conflictingFields"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"OutcomeUnknown"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retrySameIdIsSafe"}},{"kind":"Field","name":{"kind":"Name","value":"checkBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamRejected"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamUnavailable"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfterSeconds"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ValidationError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"issues"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}}]}}]}}]}}]} as unknown as DocumentNode<AddFundsMutation, AddFundsMutationVariables>;
export const BrandPickerDocument = {"__meta__":{"hash":"sha256:66d42a398c97cb548c0828c3bc349983ad524788818b5698fd5ffb628e19a9b8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BrandPicker"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"BrandFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"brands"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"brandCode"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"imageUrl"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"priceOptions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"FixedPrices"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"valuesInCents"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PriceRange"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"minInCents"}},{"kind":"Field","name":{"kind":"Name","value":"maxInCents"}}]}}]}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"regions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]} as unknown as DocumentNode<BrandPickerQuery, BrandPickerQueryVariables>;
export const CampaignDashboardDocument = {"__meta__":{"hash":"sha256:9e98e473aa670dcaca0174d4dfacdf2ba2b53e1e42bc3efebda8237f3ef0def8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CampaignDashboard"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"refs"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"giftsPerCampaign"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"campaigns"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"refs"},"value":{"kind":"Variable","name":{"kind":"Name","value":"refs"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryType"}},{"kind":"Field","name":{"kind":"Name","value":"priceInCents"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"fees"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalInCents"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gifts"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"giftsPerCampaign"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryStatus"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}},{"kind":"Field","name":{"kind":"Name","value":"redeliveryCount"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"campaign"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}}]}},{"kind":"Field","name":{"kind":"Name","value":"brand"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"brandCode"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<CampaignDashboardQuery, CampaignDashboardQueryVariables>;
export const CancelRewardDocument = {"__meta__":{"hash":"sha256:24d2e4e4a1a11701299670f43acf755ee2185c7e04d8c5f58dec88dc6c8fa76b"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelReward"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"uuid"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelGift"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"uuid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"uuid"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GiftPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gift"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"NotCancellable"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"NotFound"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"ref"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"OutcomeUnknown"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retrySameIdIsSafe"}},{"kind":"Field","name":{"kind":"Name","value":"checkBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamRejected"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamUnavailable"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfterSeconds"}}]}}]}}]}}]} as unknown as DocumentNode<CancelRewardMutation, CancelRewardMutationVariables>;
export const CreateRewardDocument = {"__meta__":{"hash":"sha256:b050c8d2fb0e15ba22291344a08f7bd1dd894b06df624a9ce8aef7f670e3cecd"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateReward"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateCampaignInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createCampaign"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CreateCampaignPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"orderId"}},{"kind":"Field","name":{"kind":"Name","value":"orderUuid"}},{"kind":"Field","name":{"kind":"Name","value":"funding"}},{"kind":"Field","name":{"kind":"Name","value":"replayed"}},{"kind":"Field","name":{"kind":"Name","value":"campaign"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"priceInCents"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryType"}},{"kind":"Field","name":{"kind":"Name","value":"fees"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalInCents"}}]}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"IdempotencyConflict"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"conflictingFields"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"OutcomeUnknown"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retrySameIdIsSafe"}},{"kind":"Field","name":{"kind":"Name","value":"checkBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamRejected"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamUnavailable"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfterSeconds"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ValidationError"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"issues"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"path"}}]}}]}}]}}]}}]} as unknown as DocumentNode<CreateRewardMutation, CreateRewardMutationVariables>;
export const FindRewardsDocument = {"__meta__":{"hash":"sha256:ee4ed477189d72f4e7500b2ea1395eec756ae635411f3235223e406dbb9d5812"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"FindRewards"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"recipientEmail"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"recipientName"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"orderUuid"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"status"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"GiftStatus"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gifts"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"recipientEmail"},"value":{"kind":"Variable","name":{"kind":"Name","value":"recipientEmail"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"recipientName"},"value":{"kind":"Variable","name":{"kind":"Name","value":"recipientName"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"campaignUuid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"orderUuid"}}},{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"Variable","name":{"kind":"Name","value":"status"}}}]}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}},{"kind":"Field","name":{"kind":"Name","value":"recipientName"}},{"kind":"Field","name":{"kind":"Name","value":"priceInCents"}},{"kind":"Field","name":{"kind":"Name","value":"brandCode"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryStatus"}},{"kind":"Field","name":{"kind":"Name","value":"redeliveryCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdDate"}},{"kind":"Field","name":{"kind":"Name","value":"redeemedDate"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"campaignUuid"}}]}}]}}]}}]}}]} as unknown as DocumentNode<FindRewardsQuery, FindRewardsQueryVariables>;
export const FundsWidgetDocument = {"__meta__":{"hash":"sha256:a78e9cdbe41c0a2582797078233284fdba349726390d3f19e3bb27a9344a276b"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"FundsWidget"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"displayName"}}]}},{"kind":"Field","name":{"kind":"Name","value":"funds"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"balances"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"availableInCents"}},{"kind":"Field","name":{"kind":"Name","value":"pendingInCents"}},{"kind":"Field","name":{"kind":"Name","value":"reservedInCents"}}]}}]}}]}}]} as unknown as DocumentNode<FundsWidgetQuery, FundsWidgetQueryVariables>;
export const GetOrderDocument = {"__meta__":{"hash":"sha256:631add6c4937de4f0c8ddd7ae676519cec21c7a1f80e4d8b2b7eb107f9aa710e"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"GetOrder"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"ref"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"rewards"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}},"defaultValue":{"kind":"IntValue","value":"20"}}],"directives":[{"kind":"Directive","name":{"kind":"Name","value":"live"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"campaign"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"ref"},"value":{"kind":"Variable","name":{"kind":"Name","value":"ref"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryType"}},{"kind":"Field","name":{"kind":"Name","value":"priceInCents"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"fees"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalInCents"}}]}},{"kind":"Field","name":{"kind":"Name","value":"gifts"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"rewards"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryStatus"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<GetOrderQuery, GetOrderQueryVariables>;
export const GetRewardDocument = {"__meta__":{"hash":"sha256:cea524670eb9ea5c3f921d010a03636d935488938f62da9d6610ab205f5e1fa8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"GetReward"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"uuid"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gift"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"uuid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"uuid"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}},{"kind":"Field","name":{"kind":"Name","value":"recipientName"}},{"kind":"Field","name":{"kind":"Name","value":"priceInCents"}},{"kind":"Field","name":{"kind":"Name","value":"brandCode"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryStatus"}},{"kind":"Field","name":{"kind":"Name","value":"redeliveryCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdDate"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryDate"}},{"kind":"Field","name":{"kind":"Name","value":"redeemedDate"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"campaign"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryType"}}]}}]}}]}}]} as unknown as DocumentNode<GetRewardQuery, GetRewardQueryVariables>;
export const ReadBalancesDocument = {"__meta__":{"hash":"sha256:82ca085e00aa8302037d34a8f9bbf31c8b4ba0d2a2ddd3cf169f9df919daf68f"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ReadBalances"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"funds"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"balances"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"availableInCents"}},{"kind":"Field","name":{"kind":"Name","value":"pendingInCents"}},{"kind":"Field","name":{"kind":"Name","value":"reservedInCents"}}]}}]}}]}}]} as unknown as DocumentNode<ReadBalancesQuery, ReadBalancesQueryVariables>;
export const ResendRewardDocument = {"__meta__":{"hash":"sha256:62f05794f2fe565ae4da51042febc4bc8bf80582df02ef7ee1ba95d2e41683d8"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ResendReward"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"uuid"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resendGift"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"uuid"},"value":{"kind":"Variable","name":{"kind":"Name","value":"uuid"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"GiftPayload"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"gift"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uuid"}},{"kind":"Field","name":{"kind":"Name","value":"recipientEmail"}},{"kind":"Field","name":{"kind":"Name","value":"deliveryStatus"}},{"kind":"Field","name":{"kind":"Name","value":"redeliveryCount"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"NotFound"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"ref"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"OutcomeUnknown"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retrySameIdIsSafe"}},{"kind":"Field","name":{"kind":"Name","value":"checkBefore"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamRejected"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"UpstreamUnavailable"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"retryAfterSeconds"}}]}}]}}]}}]} as unknown as DocumentNode<ResendRewardMutation, ResendRewardMutationVariables>;