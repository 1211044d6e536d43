import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { operationCost } from './operation-cost.js';

// Limits on what one operation may ask, all enforced before execution, so an abusive query never reaches
// the upstream. Depth, aliases and tokens come from graphql-armor; the cost limit is ours because it has to
// multiply by page sizes (see operation-cost.ts).

export interface OperationLimits {
  /** Deepest field nesting allowed. Default 12 (the deepest example operation is 7). */
  maxDepth: number;
  /** Aliases per operation. Default 20. */
  maxAliases: number;
  /** Lexical tokens per document, bounding parse work. Default 3000. */
  maxTokens: number;
  /** Upstream-weighted cost per operation (see operation-cost.ts). Default 25000. */
  maxCost: number;
  /** Hide "did you mean …" suggestions, which leak the schema when introspection is off. */
  blockSuggestions: boolean;
}

function costLimitPlugin(maxCost: number): Plugin {
  const check = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution: (result: ExecutionResult) => void }) => {
    const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues);
    if (cost > maxCost) {
      setResultAndStopExecution({
        errors: [
          new GraphQLError(`Operation cost ${cost} exceeds the limit of ${maxCost}; ask for smaller pages or fewer items.`, {
            extensions: { code: 'COST_LIMIT_EXCEEDED', cost, limit: maxCost },
          }),
        ],
      });
    }
  };
  return { onExecute: check, onSubscribe: check };
}

export function operationLimitPlugins(limits: OperationLimits): Plugin[] {
  // graphql-armor types its plugins as plain envelop plugins with an empty context; yoga runs envelop
  // plugins as they are, only the context type parameter differs.
  const plugins = [
    maxTokensPlugin({ n: limits.maxTokens }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true }),
    maxAliasesPlugin({ n: limits.maxAliases }),
    costLimitPlugin(limits.maxCost),
  ] as Plugin[];
  if (limits.blockSuggestions) plugins.push(blockFieldSuggestionsPlugin() as Plugin);
  return plugins;
}
