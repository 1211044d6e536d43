// Normalised-cache configuration for clients of the gateway, kept next to the example operations and used by
// the gateway's own cache test (test/api/normalised-cache.test.ts), so the advice of docs/api.md is proven.
//
// Apollo Client: `new InMemoryCache({ typePolicies: apolloTypePolicies })`. Every entity has one identity:
// orders and rewards by `uuid`, brands by `brandCode`, regions by `id`. (`Campaign.id` is the caller's own
// idempotency key, not the upstream's id, so it is not the cache key.) The Relay equivalent is
// `nodeInterfaceIdField: "nodeId"` in relay.config.js: every type implements `Node { nodeId: ID! }`.

export const apolloTypePolicies = {
  Campaign: { keyFields: ['uuid'] },
  Gift: { keyFields: ['uuid'] },
  Brand: { keyFields: ['brandCode'] },
  Region: { keyFields: ['id'] },
};
