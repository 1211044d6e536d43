// Gateway API keys used by the security suites: one per scope profile. Random enough to be accepted in
// production (docs/operations.md#secrets), which several of those suites run in.
export const KEYS = {
  reader: { name: 'dashboard', key: 'reader-key-ryQlvoqVsREBNrW0HdIFK9JvcvvYQBbZ', scopes: ['rewards:read'] },
  writer: { name: 'ordering', key: 'writer-key-QWuNwFzv4w4AEfzXgqzK1ZGWSSu4cECD', scopes: ['rewards:read', 'rewards:write'] },
  fundsReader: { name: 'finance-view', key: 'funds-read-NbxEJUKu9vtkyguEubVQKRlk1Lzd5p38', scopes: ['funds:read'] },
  treasurer: { name: 'treasury', key: 'treasurer-mouG1AnguRSYbBPmlx9zBu5uJrq04Pgm', scopes: ['funds:read', 'funds:write'] },
} as const;

export const KEYS_ENV = { GATEWAY_API_KEYS: JSON.stringify(Object.values(KEYS)) };

export const bearer = (k: { key: string }) => ({ authorization: `Bearer ${k.key}` });
