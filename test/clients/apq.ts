import { createHash } from 'node:crypto';

// Automatic persisted queries as a client sends them: the document's SHA-256 in extensions.persistedQuery.

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

/** POSTs `body` to `url` (a gateway's /graphql) and reads the answer. */
export async function post(send: (init: RequestInit) => Promise<Response>, body: unknown) {
  const res = await send({
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: { message: string; extensions?: any }[] } };
}
