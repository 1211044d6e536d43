import { type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { operationCost } from './operation-cost.js';
import { gatewayError } from '../errors/gateway-error.js';

// What an operation would cost the upstream, refused before it executes or subscribes (MAX_COST, default
// 25,000). Ours rather than graphql-armor's cost limit because it multiplies by page sizes and list
// arguments and needs the operation's variables, known only once it is about to run (operation-cost.ts).

export interface CostLimit {
  /** MAX_COST */
  maxCost: number;
}

export function useCostLimit({ maxCost }: CostLimit): Plugin {
  const check = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution: (result: ExecutionResult) => void }) => {
    const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues);
    if (cost > maxCost) {
      setResultAndStopExecution({
        errors: [gatewayError('COST_LIMIT_EXCEEDED', { cost, limit: maxCost })],
      });
    }
  };
  return { onExecute: check, onSubscribe: check };
}
