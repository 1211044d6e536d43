// What the peers share, and only what the benchmark queries need: the schema text, the mapping of upstream
// strings to enum values, the upstream's answers shaped the way the gateway shapes them, and the settings from
// the environment (PEER_PORT, REWARD_API_URL, REWARD_API_TOKEN). Plain JavaScript run by plain node: this is
// what a team ships after compiling, so the peers carry no TypeScript loader.

export const typeDefs = /* GraphQL */ `
  enum CampaignStatus {
    CREATING
    AWAITING_FUNDS
    CREATED
    UNKNOWN
  }
  enum GiftStatus {
    SENT_AND_REDEEMABLE
    REDEEMED
    EXPIRED
    CANCELLED
    UNKNOWN
  }
  enum DeliveryStatus {
    UNSENT
    DELIVERED
    LINK_CREATED
    TEMPORARILY_UNDELIVERABLE
    UNDELIVERABLE
    UNSUBSCRIBED
    COMPLAINT
    UNKNOWN
  }
  type CurrencyBalance {
    currency: String!
    availableInCents: Int!
    pendingInCents: Int!
    reservedInCents: Int!
  }
  type Funds {
    balances: [CurrencyBalance!]!
  }
  type Brand {
    brandCode: String!
    name: String!
  }
  type Gift {
    uuid: String!
    status: GiftStatus!
    deliveryStatus: DeliveryStatus!
    priceInCents: Int!
    recipientEmail: String
    brand: Brand
  }
  type GiftEdge {
    node: Gift!
  }
  type GiftConnection {
    edges: [GiftEdge!]!
  }
  type Campaign {
    uuid: ID!
    status: CampaignStatus!
    gifts(first: Int): GiftConnection!
  }
  type Query {
    funds: Funds
    campaigns(refs: [ID!]!): [Campaign]!
  }
`;

const CAMPAIGN_STATUS = { API_CREATING: 'CREATING', AWAITING_FUNDS: 'AWAITING_FUNDS', CAMPAIGN_CREATED: 'CREATED' };
const GIFT_STATUS = {
  SENT_AND_REDEEMABLE: 'SENT_AND_REDEEMABLE',
  REDEEMED: 'REDEEMED',
  EXPIRED: 'EXPIRED',
  GIVER_CANCELLED: 'CANCELLED',
  GIVER_CANCELED: 'CANCELLED',
};
const DELIVERY_STATUS = {
  UNSENT: 'UNSENT',
  DELIVERED: 'DELIVERED',
  LINKCREATED: 'LINK_CREATED',
  TEMPORARILY_UNDELIVERABLE: 'TEMPORARILY_UNDELIVERABLE',
  UNDELIVERABLE: 'UNDELIVERABLE',
  UNSUBSCRIBED: 'UNSUBSCRIBED',
  COMPLAINT: 'COMPLAINT',
};
const read = (map) => (raw) => map[raw] ?? 'UNKNOWN';
export const campaignStatus = read(CAMPAIGN_STATUS);
export const giftStatus = read(GIFT_STATUS);
export const deliveryStatus = read(DELIVERY_STATUS);

/** GET /funds → balances sorted by currency, absent amounts as 0. */
export function toBalances(body) {
  return Object.entries(body.fundsbycurrency)
    .map(([currency, b]) => ({
      currency,
      availableInCents: b.available_in_cents ?? 0,
      pendingInCents: b.pending_in_cents ?? 0,
      reservedInCents: b.reserved_in_cents ?? 0,
    }))
    .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}

/** Brand details change rarely: one process-wide cache (5 minutes), concurrent misses share one request. */
export function brandCache(fetchBrand, ttlMs = 300_000) {
  const entries = new Map();
  return (code) => {
    const hit = entries.get(code);
    if (hit && hit.until > Date.now()) return hit.promise;
    const promise = fetchBrand(code).catch((error) => {
      entries.delete(code);
      throw error;
    });
    entries.set(code, { promise, until: Date.now() + ttlMs });
    return promise;
  };
}

export function settings() {
  const { PEER_PORT, REWARD_API_URL, REWARD_API_TOKEN } = process.env;
  if (!REWARD_API_URL || !REWARD_API_TOKEN) throw new Error('REWARD_API_URL and REWARD_API_TOKEN are required');
  return { port: Number(PEER_PORT ?? 4100), baseUrl: REWARD_API_URL.replace(/\/$/, ''), token: REWARD_API_TOKEN };
}

/** The line the harness waits for. */
export function announce(name, port) {
  process.stdout.write(`${name} listening on http://127.0.0.1:${port}/graphql\n`);
}
