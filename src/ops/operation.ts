import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';

// What the metrics and log plugins say about an operation: its name and type as the document states them,
// and how it went judging by its result.

export type Outcome = 'ok' | 'error';

export interface OperationLabel {
  /** The operation's name; `anonymous` when it has none, `unknown` when the document does not say. */
  name: string;
  type: 'query' | 'mutation' | 'subscription' | 'unknown';
}

export function describeOperation(document: DocumentNode | null, operationName?: string | null): OperationLabel {
  const operation = document ? getOperationAST(document, operationName) : null;
  if (!operation) return { name: 'unknown', type: 'unknown' };
  return { name: operation.name?.value ?? 'anonymous', type: operation.operation };
}

export function outcomeOf(result: ExecutionResult): Outcome {
  return result.errors?.length ? 'error' : 'ok';
}

/** The distinct `extensions.code` of a result's errors, for log lines (never messages: they may quote input). */
export function errorCodes(errors: readonly { extensions?: Record<string, unknown> }[] | undefined): string[] {
  return [...new Set((errors ?? []).map((e) => String(e.extensions?.code ?? 'UNCODED')))];
}
