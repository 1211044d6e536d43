import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Freshness } from './cached-client.js';

// How an operation meets the read cache, one rule in one place:
//   - a request with `Cache-Control: no-cache` reads past the cache (the context sets `fresh` from the header,
//     freshnessOf below); its answers are stored for the next reader;
//   - a mutation reads past the cache too: what it checks before writing, and the payload it answers with,
//     must be the upstream's state, not a copy of it;
//   - an operation that was answered with an expired entry because the upstream failed (stale-if-error) says
//     so with `extensions.stale: true`, so a client can show that the data may be old (each object's
//     `observedAt` says how old).
// Subscriptions carry no such header and their events are read by the pollers, never from the cache.

interface WithFreshness {
  freshness?: Freshness;
}

/** Whether an HTTP request asks for fresh reads. */
export function freshnessOf(request: Request | null): Freshness {
  const cacheControl = request?.headers.get('cache-control') ?? '';
  return { fresh: /(^|[\s,])no-cache([\s,=]|$)/i.test(cacheControl), stale: false };
}

export function useCacheFreshness(): Plugin<WithFreshness> {
  return {
    onExecute({ args }) {
      const freshness = args.contextValue.freshness;
      if (!freshness) return undefined;
      if (getOperationAST(args.document, args.operationName)?.operation === 'mutation') freshness.fresh = true;
      return {
        onExecuteDone({ result, setResult }) {
          if (!freshness.stale || Symbol.asyncIterator in result) return;
          setResult({ ...result, extensions: { ...result.extensions, stale: true } });
        },
      };
    },
  };
}
