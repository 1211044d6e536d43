import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';

// A mutation is a write from its first upstream call to its last: the reads it makes to decide (cancel's read
// of the reward, a create's catalog and replay lookups) and to answer (its payload) are part of it, and carry
// a write's priority in the upstream budget like the write itself. Otherwise a neighbour's flood of reads,
// within its own rate limit, would make a write wait behind it or fail before it is sent
// (docs/caching.md#upstream-budget). The lookups a write's recovery makes are the upstream client's
// (upstream/call.ts) and carry it whoever calls.

interface WithWrites {
  writes?: (this: WithWrites) => void;
}

export function useWritePriority(): Plugin<WithWrites> {
  return {
    onExecute({ args }) {
      if (getOperationAST(args.document, args.operationName)?.operation === 'mutation') args.contextValue.writes?.();
    },
  };
}
