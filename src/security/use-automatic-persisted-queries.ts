import { useAPQ } from '@graphql-yoga/plugin-apq';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { PERSISTED_DOCUMENT_TTL_MS, type DocumentBounds, type PersistedDocumentStore } from '../cluster/persisted-documents.js';
import { gatewayError } from '../errors/gateway-error.js';
import { createLocalCharges } from './persisted-query-charges.js';
import type { Caller } from './scopes.js';

// Automatic persisted queries (APQ), as Apollo Client's persisted-query link and other mobile clients send them
// by default: a request carries `extensions.persistedQuery.sha256Hash` and no document; an unknown hash is
// PERSISTED_QUERY_NOT_FOUND, and the client sends the document once with its hash (the hash must be the
// document's SHA-256: PERSISTED_QUERY_MISMATCH otherwise).
//
// Only what could run is kept: the document is registered once the operation it came with has parsed, passed
// the limits and validation, started to execute (the cost limit lets it) and met no FORBIDDEN (the caller's
// scopes allow it), so nothing stores a document it could not run, nor one its caller may not. Each caller
// (API key, token subject) holds at most APQ_MAX_DOCUMENTS_PER_CALLER documents of APQ_MAX_BYTES_PER_CALLER
// bytes in all, each for a day after its last registration; past that a document still runs, it is not kept
// (the client sends it again next time).
//
// In memory also at most the newest 1,000 documents up to 5 MB in all (least recently used go first). In
// cluster mode the documents and the callers' counts are in Redis (cluster/persisted-documents.ts), so any
// replica knows a hash; while Redis does not answer each replica keeps and counts its own.
// Off when TRUSTED_DOCUMENTS is set: only the manifest's hashes run then, and nothing can register a new one
// (security.ts leaves this plugin out; use-trusted-documents.ts reads the same hash field).

const MAX_DOCUMENTS = 1_000;
const MAX_BYTES = 5_000_000;

interface Registration {
  hash: string;
  document: string;
}

export interface PersistedQueryOptions {
  shared?: PersistedDocumentStore;
  /** APQ_MAX_DOCUMENTS_PER_CALLER, APQ_MAX_BYTES_PER_CALLER */
  bounds: DocumentBounds;
}

/** Memory first; Redis (when given) behind it, read on a miss; a registration is Redis's to admit when it answers. */
function documentStore({ shared, bounds }: PersistedQueryOptions) {
  const local = new LRUCache<string, string>({
    max: MAX_DOCUMENTS,
    maxSize: MAX_BYTES,
    ttl: PERSISTED_DOCUMENT_TTL_MS,
    sizeCalculation: (document) => document.length || 1,
  });
  const charges = createLocalCharges(bounds, PERSISTED_DOCUMENT_TTL_MS);
  return {
    async get(hash: string): Promise<string | null | undefined> {
      const known = local.get(hash);
      if (known !== undefined || !shared) return known;
      const found = await shared.get(hash).catch(() => null);
      if (found !== null) local.set(hash, found);
      return found;
    },
    async register(caller: string, { hash, document }: Registration): Promise<void> {
      const admitLocally = () => charges.admit(caller, hash, Buffer.byteLength(document));
      const admitted = shared ? await shared.register(caller, hash, document, bounds).catch(admitLocally) : admitLocally();
      if (admitted) local.set(hash, document);
    },
  };
}

const hashOf = (extensions: Record<string, unknown> | undefined): string | null => {
  const persisted = extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : null;
};

/** Whether an operation ran as its caller may run it: it executed (nothing refused it before) and met no FORBIDDEN. */
const ranAllowed = (result: ExecutionResult) => 'data' in result && !result.errors?.some((error) => error.extensions?.code === 'FORBIDDEN');

export function useAutomaticPersistedQueries(options: PersistedQueryOptions): Plugin {
  const documents = documentStore(options);
  // Registration is ours (below), once the operation has run: the plugin only looks hashes up and checks them.
  const apq = useAPQ({ store: { get: documents.get, set: () => undefined }, responseConfig: { forceStatusCodeOk: true } });
  // By the operation's context, the one object both the params stage and execution see, on every transport.
  const pending = new WeakMap<object, Registration>();
  const take = (context: unknown): { caller: string; registration: Registration } | null => {
    const registration = context && typeof context === 'object' ? pending.get(context) : undefined;
    const caller = (context as { caller?: Caller } | undefined)?.caller;
    if (!registration || !caller) return null;
    pending.delete(context as object);
    return { caller: caller.name, registration };
  };

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
      // A document sent with its hash, which the plugin found to match: a registration, once it has run.
      const hash = hashOf(payload.params.extensions);
      const context = (payload as { context?: unknown }).context;
      if (hash && typeof payload.params.query === 'string' && context && typeof context === 'object') {
        pending.set(context, { hash, document: payload.params.query });
      }
    },
    onExecute({ args }) {
      const registering = take(args.contextValue);
      if (!registering) return;
      const register = (result: ExecutionResult) =>
        ranAllowed(result) ? documents.register(registering.caller, registering.registration) : undefined;
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return register(result);
          // Incremental delivery: the first part carries the scope refusals of the fields it holds.
          let first = true;
          return {
            onNext({ result: part }) {
              if (!first) return;
              first = false;
              return register(part);
            },
          };
        },
      };
    },
    onSubscribe({ args }) {
      const registering = take(args.contextValue);
      if (!registering) return;
      return {
        // A stream is a subscription that started: its scopes and limits let it.
        onSubscribeResult({ result }) {
          if (isAsyncIterable(result)) void documents.register(registering.caller, registering.registration);
        },
      };
    },
  };
}
