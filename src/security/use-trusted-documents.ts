import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { z } from 'zod';
import { describeFailure } from '../errors/gateway-error.js';

// Trusted documents: with TRUSTED_DOCUMENTS pointing at a manifest (hash → document, as `npm run codegen`
// writes for operations/), the gateway runs only those operations, by hash. Mobile apps ship the hashes;
// an attacker holding a stolen key still cannot run a query nobody reviewed. Default: off (any document runs).
//
// The check is yoga's `onParams` stage: yoga runs it for HTTP and SSE, and the same hook runs on each WebSocket
// `subscribe` payload and webhook endpoint's document (edge/run-as-caller.ts), so all refuse in the same words.

const manifestSchema = z.record(z.string().min(1), z.string().min(1));

export type TrustedDocuments = ReadonlyMap<string, string>;

/** Reads the manifest; ids resolve with or without their "sha256:" prefix. */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`TRUSTED_DOCUMENTS ${path} is not a hash → document manifest`);
  const documents = new Map<string, string>();
  for (const [id, document] of Object.entries(parsed.data)) {
    documents.set(id, document);
    documents.set(id.replace(/^sha256:/, ''), document);
  }
  return documents;
}

/**
 * The document id a request names: `documentId` is the GraphQL-over-HTTP trusted documents field,
 * `extensions.persistedQuery.sha256Hash` the older Apollo form some clients still send.
 */
function persistedDocumentId(params: { extensions?: unknown }): string | null {
  const extensions = params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined;
  const id = (params as { documentId?: unknown }).documentId ?? extensions?.persistedQuery?.sha256Hash;
  return typeof id === 'string' ? id : null;
}

/** The plugin's error options, as the catalogue describes them. */
function catalogued(code: 'PERSISTED_QUERY_NOT_FOUND' | 'PERSISTED_QUERY_ONLY'): { message: string; extensions: Record<string, unknown> } {
  const { message, extensions } = describeFailure(code);
  return { message, extensions };
}

export function useTrustedDocuments(documents: TrustedDocuments): Plugin {
  return usePersistedOperations({
    allowArbitraryOperations: false,
    extractPersistedOperationId: persistedDocumentId,
    getPersistedOperation: (id) => documents.get(id) ?? null,
    // From the catalogue; a payload naming no document is the same refusal as one sending a query instead.
    customErrors: {
      notFound: catalogued('PERSISTED_QUERY_NOT_FOUND'),
      persistedQueryOnly: catalogued('PERSISTED_QUERY_ONLY'),
      keyNotFound: catalogued('PERSISTED_QUERY_ONLY'),
    },
  });
}
