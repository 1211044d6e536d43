// Bounds the gateway enforces before any upstream call. The upstream publishes none of these ("not shown"
// in the specification); each is documented in docs/configuration.md and chosen to stay inside what production was
// seen to accept while catching obvious mistakes.

/** $10,000 per reward: above the largest face value any catalog brand offers. */
export const PRICE_MAX_CENTS = 1_000_000;
export const CONTACTS_MAX = 1_000;
/** Orders one `campaigns(refs:)` looks up; each is an upstream request. */
export const REFS_MAX = 100;
export const LINK_COUNT_MAX = 1_000;
export const BRANDS_MAX = 50;
export const SUBJECT_MAX_LENGTH = 200;
export const MESSAGE_MAX_LENGTH = 10_000;
/** Card top-ups: the bounds production's error for ERROR_FUNDS_INVALID_FUND_AMOUNT recorded. */
export const TOP_UP_MIN_CENTS = 25_000;
export const TOP_UP_MAX_CENTS = 1_000_000;
/** Rewards expire at most one year after creation (docs/reward-api.md). */
export const EXPIRY_MAX_DAYS = 365;
