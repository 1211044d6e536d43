import { execute, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { errorsInDocumentOrder } from './error-order.js';

// Operations that do not run compiled run on graphql-js's own execute, not on yoga's default executor
// (@graphql-tools/executor). That executor is a fork of graphql-js with its own variable coercion and messages,
// and it builds each object's keys in the order its fields resolve, so two runs of one document could answer
// `{"funds":…,"viewer":…}` and then `{"viewer":…,"funds":…}`; graphql-js (like graphql-jit) answers in the
// document's order, as the spec says.

/**
 * graphql-js's execute, its errors in document order (error-order.ts). A request error (no `data`: variables
 * that do not coerce, a missing operation) keeps the status yoga's executor gave it, 400, so clients see the
 * same status as before.
 */
export function interpret(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
  const result = execute(args);
  const finish = (r: ExecutionResult) => errorsInDocumentOrder(withRequestErrorStatus(r));
  return result instanceof Promise ? result.then(finish) : finish(result);
}

function withRequestErrorStatus(result: ExecutionResult): ExecutionResult {
  if ('data' in result || !result.errors) return result;
  return {
    errors: result.errors.map(
      (error) =>
        new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: error.originalError ?? undefined,
          extensions: { ...error.extensions, http: { status: 400 } },
        }),
    ),
  };
}
