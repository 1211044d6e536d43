import type { Plugin } from 'graphql-yoga';
import type { Caller } from './scopes.js';
import { useTrustedDocuments, type TrustedDocuments } from './use-trusted-documents.js';

// Trusted documents for some callers only: a client listed in AUTH_TRUSTED_ONLY_CLIENTS (a mobile app, locked to
// the operations it shipped) or an API key with `trustedOnly` runs only the TRUSTED_DOCUMENTS operations, refused
// otherwise with the very codes trusted-documents mode gives; every other caller runs any document. Over HTTP
// the caller is the request's (authentication ran first); over WebSocket the connection's, in the context.

export function useTrustedOnlyCallers(documents: TrustedDocuments, callerOf: (request: Request) => Caller): Plugin {
  const trusted = useTrustedDocuments(documents);
  const onParams = trusted.onParams!;
  return {
    ...trusted,
    onParams(payload) {
      const context = payload.context as { caller?: Caller };
      const caller = payload.request ? callerOf(payload.request) : context.caller;
      if (!caller?.trustedOnly) return;
      return onParams(payload);
    },
  };
}
