import { builder } from './builder.js';

// Upstream status strings become GraphQL enums with an UNKNOWN member: a value the gateway has not heard of
// yet reads as UNKNOWN (the raw string stays on a separate field) instead of failing the whole query.

function enumMapping<const V extends string>(name: string, description: string, fromRaw: Record<string, V>) {
  const values = [...new Set(Object.values(fromRaw)), 'UNKNOWN'] as const;
  const ref = builder.enumType(name, { description, values: values as readonly (V | 'UNKNOWN')[] });
  /** Maps an upstream string to the enum value, UNKNOWN when unrecognised. */
  const read = (raw: string | null | undefined): V | 'UNKNOWN' => (raw != null && fromRaw[raw]) || 'UNKNOWN';
  /** The production spelling to send upstream for an enum value. */
  const write = (value: V): string => Object.keys(fromRaw).find((raw) => fromRaw[raw] === value) ?? value;
  return { ref, read, write };
}

export const CampaignStatus = enumMapping(
  'CampaignStatus',
  'Processing state of an order as a whole, not of its rewards: CREATING while the reward API is still setting the order up ' +
    '(it may have sent some rewards already, so an order CREATING with rewards DELIVERED is normal), AWAITING_FUNDS until the ' +
    'balance covers it, CREATED once every reward exists. Each reward says where it is in `Gift.status` and `Gift.deliveryStatus`.',
  {
    API_CREATING: 'CREATING',
    AWAITING_FUNDS: 'AWAITING_FUNDS',
    CAMPAIGN_CREATED: 'CREATED',
  },
);

export const GiftStatus = enumMapping('GiftStatus', 'Claim status of one reward.', {
  SENT_AND_REDEEMABLE: 'SENT_AND_REDEEMABLE',
  REDEEMED: 'REDEEMED',
  EXPIRED: 'EXPIRED',
  // Production spelling first: `write` sends the first raw spelling of a value.
  GIVER_CANCELLED: 'CANCELLED',
  GIVER_CANCELED: 'CANCELLED',
});

export const DeliveryStatus = enumMapping(
  'DeliveryStatus',
  'Delivery status of one reward: whether its email reached the recipient (DELIVERED) or its link exists (LINK_CREATED). ' +
    'It is independent of the order: a reward may be DELIVERED while its order is still CREATING (`CampaignStatus`).',
  {
    UNSENT: 'UNSENT',
    DELIVERED: 'DELIVERED',
    LINKCREATED: 'LINK_CREATED',
    TEMPORARILY_UNDELIVERABLE: 'TEMPORARILY_UNDELIVERABLE',
    UNDELIVERABLE: 'UNDELIVERABLE',
    UNSUBSCRIBED: 'UNSUBSCRIBED',
    COMPLAINT: 'COMPLAINT',
  },
);

const deliveryTypes = enumMapping('DeliveryType', 'How rewards of an order reach recipients.', {
  SERVICE_EMAIL: 'EMAIL',
  DIRECT_LINK: 'DIRECT_LINK',
  SHORTLINK: 'SHORTLINK',
  EMBEDDED: 'EMBEDDED',
});

export const DeliveryType = {
  ...deliveryTypes,
  // Production names its email delivery after the service (`<SERVICE>_EMAIL`); any such value is EMAIL.
  read: (raw: string | null | undefined) => (raw?.endsWith('_EMAIL') ? 'EMAIL' : deliveryTypes.read(raw)),
};

export const SortDirection = builder.enumType('SortDirection', { values: ['ASC', 'DESC'] as const });
