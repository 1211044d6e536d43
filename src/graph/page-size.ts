// How many items a connection page holds. Read by the resolvers (schema/paging.ts) and by the cost limit
// (security/operation-cost.ts), which must count a page exactly as the resolvers fill it; a plain module so the
// security layer does not load the schema's paging helpers.

/** Items in a page when `first` is absent or null. */
export const DEFAULT_PAGE_SIZE = 20;
/** The largest `first` a connection accepts. */
export const MAX_PAGE_SIZE = 100;
