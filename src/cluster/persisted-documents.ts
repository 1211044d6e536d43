import type { RedisConnection } from './redis.js';

// Automatic persisted queries in cluster mode (security/use-automatic-persisted-queries.ts): a document a client
// registered on one replica is found by its hash on every other, so a client's next request, which carries only
// the hash, may go to any replica. Kept for a day after its last registration: clients register again when it is
// gone (they get PERSISTED_QUERY_NOT_FOUND and resend the document).
//
//   P{apq:<sha256>}:document   the document (one key per document, named by keys.ts's hash-tag rule)

export interface PersistedDocumentStore {
  get(hash: string): Promise<string | null>;
  set(hash: string, document: string): Promise<void>;
}

const TTL_SECONDS = 24 * 60 * 60;

export function redisPersistedDocuments(connection: RedisConnection): PersistedDocumentStore {
  const key = (hash: string) => connection.keys.tagged(`apq:${hash}`, 'document');
  return {
    get: (hash) => connection.guard(connection.client.get(key(hash))),
    set: async (hash, document) => void (await connection.guard(connection.client.set(key(hash), document, 'EX', TTL_SECONDS))),
  };
}
