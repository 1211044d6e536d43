import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { inScope, type UpstreamScope } from '../upstream/scope.js';

// Runs each operation in its upstream scope (src/upstream/scope.ts): the lane of its API key, so the
// bulkhead shares upstream concurrency fairly between keys, and the gateway's stop signal, so every upstream
// call still running at the shutdown deadline is aborted. The HTTP request's own signal is deliberately not
// part of it: a client that hangs up must not abort a create half-way (its retry with the same id finds it).

export function useUpstreamScope({ stopping }: { stopping: AbortSignal }): Plugin {
  const scopeOf = (args: ExecutionArgs): UpstreamScope => ({
    lane: `key:${(args.contextValue as GatewayContext).caller.name}`,
    signal: stopping,
  });
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => inScope(scopeOf(args), () => executeFn(args)));
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args) => inScope(scopeOf(args), () => subscribeFn(args)));
    },
  };
}
