import { RequestCache } from '@pothos/plugin-scope-auth';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

// Scope auth (@pothos/plugin-scope-auth) caches each operation's scope checks in a module-level WeakMap keyed by
// the GraphQL context, and the cached entry holds the context: its loaders, so every upstream answer the
// operation read. A WeakMap entry goes with its key at a full collection, but V8's scavenger keeps the value of
// an entry in an old WeakMap alive whether or not its key is: every operation in flight at a scavenge lived
// through the next one too and was promoted to the old generation with all it read (236 KB per nested read at
// 10 connections, three times the yoga + graphql-jit peer's), to wait there for a full collection
// (bench/RESULTS.md, 0o). So the entry is dropped once the operation no longer checks scopes: when its result is
// complete (a stream's last part), and for a subscription once it has started (authorizeOnSubscribe checks it
// then; its events' fields carry no scopes). A later check would simply build the cache again. Where envelop
// calls neither hook (an execute or subscribe that throws, a stream nobody iterates or whose next() rejects)
// the entry waits for a full collection, as all of them did before.

/** Drops `context`'s cache of scope checks: for executions that do not pass the plugins' hooks (a live query's rounds). */
export const releaseScopeCache = (context: object) => RequestCache.clearForContext(context);

export function useScopeCacheRelease(): Plugin {
  return {
    onExecute: () => afterExecute,
    onSubscribe: () => afterSubscribe,
  };
}

// The same hooks for every operation: envelop keeps what onSubscribe returns for as long as the stream lives.
const afterExecute = {
  onExecuteDone({ args, result }: { args: { contextValue: unknown }; result: unknown }) {
    if (!isAsyncIterable(result)) return releaseScopeCache(args.contextValue as object);
    return { onEnd: () => releaseScopeCache(args.contextValue as object) };
  },
};
const afterSubscribe = {
  onSubscribeResult: ({ args }: { args: { contextValue: unknown } }) => releaseScopeCache(args.contextValue as object),
};
