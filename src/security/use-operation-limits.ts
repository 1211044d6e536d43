import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ExecutionArgs, type ExecutionResult, type ValidationContext } from 'graphql';
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

/** graphql-armor's message ("Syntax Error: Query depth limit of 12 exceeded, found 13.") without the misleading prefix. */
function armorMessage(error: GraphQLError): string {
  return error.message.replace(/^Syntax Error: /, '');
}

/**
 * graphql-armor's rejections carry no code, and its validation rules throw, which ends a whole WebSocket
 * (4500) instead of one operation. Depth and aliases are reported as ordinary validation errors with a
 * stable code; the token limit, checked while parsing, throws its coded error so parsing stops there.
 */
function reportAs(code: string, limit: number) {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) =>
        context?.reportError(new GraphQLError(armorMessage(error), { extensions: { code, limit } })),
    ],
  };
}

export function operationLimitPlugins(limits: OperationLimits): Plugin[] {
  // graphql-armor types its plugins as plain envelop plugins with an empty context; yoga runs envelop
  // plugins as they are, only the context type parameter differs.
  return [
    maxTokensPlugin({
      n: limits.maxTokens,
      onReject: [
        (_context: unknown, error: GraphQLError) => {
          throw new GraphQLError(armorMessage(error), { extensions: { code: 'TOKEN_LIMIT_EXCEEDED', limit: limits.maxTokens } });
        },
      ],
    }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true, ...reportAs('DEPTH_LIMIT_EXCEEDED', limits.maxDepth) }),
    maxAliasesPlugin({ n: limits.maxAliases, ...reportAs('ALIAS_LIMIT_EXCEEDED', limits.maxAliases) }),
    costLimitPlugin(limits.maxCost),
  ] as Plugin[];
}
