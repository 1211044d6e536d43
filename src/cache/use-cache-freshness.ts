import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Freshness } from './cached-client.js';

// How an operation meets the read cache, one rule in one place:
//   - a request with `Cache-Control: no-cache` reads past the cache (the context sets `fresh` from the header,
//     freshnessOf below); its answers are stored for the next reader;
//   - a mutation reads past the cache too: what it checks before writing, and the payload it answers with,
//     must be the upstream's state, not a copy of it;
//   - every answer that holds an expired entry given because the upstream failed (stale-if-error) says so
//     with `extensions.stale: true`, so a client can show that the data may be old (each object's
//     `observedAt` says how old): a single result; under @defer and @stream, every part sent once the
//     operation got a stale answer (a part cannot hold one read before it: the reads of the parts run
//     concurrently, so this marks each part that may); in a subscription, each event whose own reads
//     (its loaders, context.ts) got one.

interface WithFreshness {
  freshness?: Freshness;
}

/** Whether an HTTP request asks for fresh reads. */
export function freshnessOf(request: Request | null): Freshness {
  const cacheControl = request?.headers.get('cache-control') ?? '';
  return { fresh: /(^|[\s,])no-cache([\s,=]|$)/i.test(cacheControl), stale: false };
}

type Result = { extensions?: Record<string, unknown> };
/** `result` marked stale when `freshness` is. */
const marked = <R extends Result>(result: R, freshness: Freshness | undefined, setResult: (result: R) => void): void => {
  if (freshness?.stale) setResult({ ...result, extensions: { ...result.extensions, stale: true } });
};

export function useCacheFreshness(): Plugin<WithFreshness> {
  return {
    onExecute({ args }) {
      const freshness = args.contextValue.freshness;
      if (!freshness) return undefined;
      if (getOperationAST(args.document, args.operationName)?.operation === 'mutation') freshness.fresh = true;
      return {
        onExecuteDone({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) return marked(result, freshness, setResult);
          // @defer / @stream: the initial result and each later part.
          return { onNext: ({ result: part, setResult: setPart }) => marked(part, freshness, setPart) };
        },
      };
    },
    onSubscribe: () => afterSubscribe,
  };
}

// The same hooks for every subscription: envelop keeps them for as long as the stream lives.
const eachEvent = {
  // Each event's resolver gives the context that event's freshness (context.ts, eventLoaders).
  onNext: ({ args, result, setResult }: { args: { contextValue: WithFreshness }; result: Result; setResult: (result: Result) => void }) =>
    marked(result, args.contextValue.freshness, setResult),
};
const afterSubscribe = { onSubscribeResult: () => eachEvent };
