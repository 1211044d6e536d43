import type { RedisConnection } from './redis.js';

// Automatic persisted queries in cluster mode (security/use-automatic-persisted-queries.ts): a document a client
// registered on one replica is found by its hash on every other, so a client's next request, which carries only
// the hash, may go to any replica. Kept for a day after its last registration: clients register again when it is
// gone (they get PERSISTED_QUERY_NOT_FOUND and resend the document). Each caller's registrations are counted
// apart, in one script, so no burst of concurrent registrations on any replicas passes its bounds.
//
//   P{apq:<sha256>}:document          the document, shared by every caller that registered it
//   P{apq-caller:<caller>}:charged    sorted set: the hashes the caller registered → when that lapses
//   P{apq-caller:<caller>}:sizes      hash: the same hashes → the document's bytes

/** How much one caller (an API key, a token subject) may have registered at once. */
export interface DocumentBounds {
  maxDocuments: number;
  maxBytes: number;
}

export interface PersistedDocumentStore {
  get(hash: string): Promise<string | null>;
  /** Stores `document` as registered by `caller`: false, and nothing stored, when it would pass their bounds. */
  register(caller: string, hash: string, document: string, bounds: DocumentBounds): Promise<boolean>;
}

/** How long a registration lasts (memory and Redis alike). */
export const PERSISTED_DOCUMENT_TTL_MS = 24 * 60 * 60 * 1000;

export function redisPersistedDocuments(connection: RedisConnection): PersistedDocumentStore {
  const document = (hash: string) => connection.keys.tagged(`apq:${hash}`, 'document');
  const charges = (caller: string) => [
    connection.keys.tagged(`apq-caller:${caller}`, 'charged'),
    connection.keys.tagged(`apq-caller:${caller}`, 'sizes'),
  ];
  return {
    get: (hash) => connection.guard(connection.client.get(document(hash))),
    async register(caller, hash, text, { maxDocuments, maxBytes }) {
      const bytes = Buffer.byteLength(text);
      const admitted = await connection.run('rgApqAdmit', ...charges(caller), hash, bytes, PERSISTED_DOCUMENT_TTL_MS, maxDocuments, maxBytes);
      if (admitted !== 1) return false;
      await connection.guard(connection.client.set(document(hash), text, 'PX', PERSISTED_DOCUMENT_TTL_MS));
      return true;
    },
  };
}
