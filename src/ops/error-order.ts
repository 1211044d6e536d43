import type { ExecutionResult, GraphQLError } from 'graphql';

// Errors are listed in the order of the document, not in the order they happened. graphql-js and graphql-jit
// both list them as they occur, so two fields failing on the same upstream outage answered
// [viewer, funds] once and [funds, viewer] the next time, depending on which call gave up first.

/** By first location (line, then column), then by path (list indexes as numbers); errors without either keep their place. */
function compare(a: GraphQLError, b: GraphQLError): number {
  const [la, lb] = [a.locations?.[0], b.locations?.[0]];
  if (la && lb && (la.line !== lb.line || la.column !== lb.column)) return la.line - lb.line || la.column - lb.column;
  const [pa, pb] = [a.path ?? [], b.path ?? []];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i]!, pb[i]!];
    if (x === y) continue;
    return typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : 1;
  }
  return pa.length - pb.length;
}

export function errorsInDocumentOrder<T extends ExecutionResult>(result: T): T {
  if (!result.errors || result.errors.length < 2) return result;
  return { ...result, errors: [...result.errors].sort(compare) };
}
