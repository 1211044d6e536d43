// Gateway API keys used by the security suites: one per scope profile.
export const KEYS = {
  reader: { name: 'dashboard', key: 'reader-key-0123456789abcdef0123', scopes: ['rewards:read'] },
  writer: { name: 'ordering', key: 'writer-key-0123456789abcdef0123', scopes: ['rewards:read', 'rewards:write'] },
  fundsReader: { name: 'finance-view', key: 'funds-read-0123456789abcdef012', scopes: ['funds:read'] },
  treasurer: { name: 'treasury', key: 'treasurer-0123456789abcdef0123', scopes: ['funds:read', 'funds:write'] },
} as const;

export const KEYS_ENV = { GATEWAY_API_KEYS: JSON.stringify(Object.values(KEYS)) };

export const bearer = (k: { key: string }) => ({ authorization: `Bearer ${k.key}` });
