import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { PersistedDocumentStore } from '../cluster/persisted-documents.js';
import { gatewayError } from '../errors/gateway-error.js';

// Automatic persisted queries (APQ), as Apollo Client's persisted-query link and other mobile clients send them
// by default: a request carries `extensions.persistedQuery.sha256Hash` and no document; an unknown hash is
// PERSISTED_QUERY_NOT_FOUND, and the client sends the document once with its hash, which registers it (the hash
// must be the document's SHA-256: PERSISTED_QUERY_MISMATCH otherwise). Registering runs nothing the document
// would not run anyway: it is parsed, validated and limited like any other.
//
// Defaults: in memory the newest 1,000 documents up to 5 MB in all (least recently used go first); in cluster
// mode they are also in Redis for a day (cluster/persisted-documents.ts), so any replica knows a hash; while
// Redis does not answer each replica keeps its own, and a client at worst sends a document once more.
// Off when TRUSTED_DOCUMENTS is set: only the manifest's hashes run then, and nothing can register a new one
// (security.ts leaves this plugin out; use-trusted-documents.ts reads the same hash field).

const MAX_DOCUMENTS = 1_000;
const MAX_BYTES = 5_000_000;

/** Memory first; Redis (when given) behind it, read on a miss and written on every registration. */
function documentStore(shared: PersistedDocumentStore | undefined): APQStore {
  const local = new LRUCache<string, string>({ max: MAX_DOCUMENTS, maxSize: MAX_BYTES, sizeCalculation: (document) => document.length || 1 });
  return {
    async get(hash) {
      const known = local.get(hash);
      if (known !== undefined || !shared) return known;
      const found = await shared.get(hash).catch(() => null);
      if (found !== null) local.set(hash, found);
      return found;
    },
    async set(hash, document) {
      local.set(hash, document);
      await shared?.set(hash, document).catch(() => undefined);
    },
  };
}

export function useAutomaticPersistedQueries(options: { shared?: PersistedDocumentStore }): Plugin {
  const apq = useAPQ({ store: documentStore(options.shared), responseConfig: { forceStatusCodeOk: true } });
  return {
    async onParams(payload) {
      try {
        await apq.onParams?.(payload);
      } catch (error) {
        // The plugin's own errors say only "PersistedQueryNotFound": the catalogue's name the fix.
        const code = error instanceof GraphQLError ? error.extensions.code : undefined;
        if (code === 'PERSISTED_QUERY_NOT_FOUND') throw gatewayError('PERSISTED_QUERY_NOT_FOUND', { apq: true });
        if (code === 'PERSISTED_QUERY_MISMATCH') throw gatewayError('PERSISTED_QUERY_MISMATCH');
        throw error;
      }
    },
  };
}
