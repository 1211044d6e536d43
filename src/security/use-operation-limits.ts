import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/gateway-error.js';

// Limits on the shape of one operation, enforced while it is parsed and validated (on every transport: both
// are envelop's), so an abusive document never executes. They come from graphql-armor; what an operation would
// cost the upstream is use-cost-limit.ts, checked next.

export interface OperationLimits {
  /** Deepest field nesting allowed. Default 12 (the deepest example operation is 7). */
  maxDepth: number;
  /** Aliases per operation. Default 20. */
  maxAliases: number;
  /** Lexical tokens per document, bounding parse work. Default 3000. */
  maxTokens: number;
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
function reportAs(code: 'DEPTH_LIMIT_EXCEEDED' | 'ALIAS_LIMIT_EXCEEDED', limit: number) {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => context?.reportError(gatewayError(code, { detail: armorMessage(error), limit })),
    ],
  };
}

export function useOperationLimits(limits: OperationLimits): Plugin[] {
  // graphql-armor types its plugins as plain envelop plugins with an empty context; yoga runs envelop
  // plugins as they are, only the context type parameter differs.
  return [
    maxTokensPlugin({
      n: limits.maxTokens,
      onReject: [
        (_context: unknown, error: GraphQLError) => {
          throw gatewayError('TOKEN_LIMIT_EXCEEDED', { detail: armorMessage(error), limit: limits.maxTokens });
        },
      ],
    }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true, ...reportAs('DEPTH_LIMIT_EXCEEDED', limits.maxDepth) }),
    maxAliasesPlugin({ n: limits.maxAliases, ...reportAs('ALIAS_LIMIT_EXCEEDED', limits.maxAliases) }),
  ] as Plugin[];
}
