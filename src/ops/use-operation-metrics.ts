import type { DocumentNode, ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { Counter, Histogram, type Registry } from 'prom-client';
import { describeOperation, outcomeOf, type OperationLabel, type Outcome } from './operation.js';

// GraphQL operations by name, type and outcome, over every transport (HTTP, SSE, WebSocket: all go through
// envelop's parse, validate, execute and subscribe).
//
// - reward_gateway_graphql_operations_total counts every operation: executed ones by their result (any error
//   in it: `error`), subscriptions by whether their stream started, and documents refused by parsing or
//   validation (limits included) as `error`.
// - reward_gateway_graphql_operation_duration_seconds times the execution of queries and mutations (parse and
//   validation are negligible beside the upstream calls; a subscription's lifetime is not a latency).
// Requests refused before parsing (authentication, CSRF, unknown persisted operation, malformed body) are
// HTTP-level refusals, not operations, and are not counted here.

export interface OperationMetricsOptions {
  /** The gateway's registry. Required: tests run several gateways in one process. */
  registry: Registry;
  /** Latency buckets in seconds. Default: 5 ms to 30 s (the upstream retry budget is 15 s). */
  buckets?: number[];
  /**
   * Distinct operation names kept as label values; names first seen after that are counted as `other`, so a
   * client inventing names cannot grow the metrics without bound. Default 200.
   */
  maxOperationNames?: number;
}

export const DEFAULT_OPERATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const LABELS = ['operation_name', 'operation_type', 'outcome'] as const;

export function useOperationMetrics({ registry, buckets = DEFAULT_OPERATION_BUCKETS, maxOperationNames = 200 }: OperationMetricsOptions): Plugin {
  const operations = new Counter({
    name: 'reward_gateway_graphql_operations_total',
    help: 'GraphQL operations by operation name, type and outcome (ok, error)',
    labelNames: LABELS,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'reward_gateway_graphql_operation_duration_seconds',
    help: 'Execution time of GraphQL queries and mutations by operation name, type and outcome',
    labelNames: LABELS,
    buckets,
    registers: [registry],
  });

  const names = new Set<string>();
  function labels(operation: OperationLabel, outcome: Outcome) {
    if (!names.has(operation.name) && names.size < maxOperationNames) names.add(operation.name);
    const name = names.has(operation.name) ? operation.name : 'other';
    return { operation_name: name, operation_type: operation.type, outcome };
  }

  const afterSubscribe = {
    // Counted once, when the stream starts or is refused. An error the stream throws later is the same
    // operation ending, not another one: the operation log records it.
    onSubscribeResult({
      args,
      result,
    }: {
      args: { document: DocumentNode; operationName?: string | null };
      result: ExecutionResult | AsyncIterable<unknown>;
    }) {
      const operation = describeOperation(args.document, args.operationName);
      operations.inc(labels(operation, isAsyncIterable(result) ? 'ok' : outcomeOf(result)));
    },
  };

  return {
    onParse() {
      return ({ result }) => {
        if (result instanceof Error) operations.inc(labels(describeOperation(null), 'error'));
      };
    },
    onValidate({ params }) {
      return ({ valid }) => {
        if (!valid) operations.inc(labels(describeOperation(params.documentAST), 'error'));
      };
    },
    onExecute({ args }) {
      const operation = describeOperation(args.document, args.operationName);
      const started = performance.now();
      const record = (outcome: Outcome) => {
        const l = labels(operation, outcome);
        operations.inc(l);
        duration.observe(l, (performance.now() - started) / 1000);
      };
      return {
        onExecuteDone({ result }) {
          // @defer/@stream are not enabled, so execution answers one result.
          if (!isAsyncIterable(result)) record(outcomeOf(result));
        },
      };
    },
    // The same hook for every subscription: envelop keeps it for as long as the stream lives.
    onSubscribe: () => afterSubscribe,
  };
}
