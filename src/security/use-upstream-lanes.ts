import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { inLane } from '../upstream/lane.js';

// Runs each operation in the upstream lane of its API key, so the bulkhead shares upstream concurrency
// fairly between keys (src/upstream/bulkhead.ts): a key flooding fan-out queries waits in its own lane.

function laneOf(args: ExecutionArgs): string {
  return `key:${(args.contextValue as GatewayContext).caller.name}`;
}

export function useUpstreamLanes(): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => inLane(laneOf(args), () => executeFn(args)));
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args) => inLane(laneOf(args), () => subscribeFn(args)));
    },
  };
}
