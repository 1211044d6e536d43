import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { markErrors } from './log-scope.js';
import type { Logger } from './logger.js';
import { describeOperation, errorCodes, outcomeOf } from './operation.js';

// One info line per GraphQL operation, on the operation's own logger (so it carries the request id): name,
// type, outcome, duration and the error codes its response carried. Documents refused by parsing or
// validation get one line too, with the reasons. The errors of a query's or mutation's result are marked with
// the operation's logger (log-scope.ts), so error masking logs them with the request id as well; the upstream
// client gets the operation's logger through its scope (src/graph/context.ts).

export interface OperationLogOptions {
  /** For documents refused before the gateway context exists; bound to the request id then. */
  logger: Logger;
  /** Reasons listed for a refused document. Default 5. */
  maxReasons?: number;
}

interface LogContext {
  requestId?: string;
  log?: Logger;
}

export function useOperationLog({ logger, maxReasons = 5 }: OperationLogOptions): Plugin<LogContext> {
  const logOf = (context: LogContext) => context.log ?? logger.child({ requestId: context.requestId });
  const refused = (context: LogContext, fields: object, reasons: readonly { message: string }[]) =>
    logOf(context).info({ ...fields, outcome: 'error', reasons: reasons.slice(0, maxReasons).map((e) => e.message) }, 'operation refused');

  return {
    onParse({ context }) {
      return ({ result }) => {
        if (result instanceof Error) refused(context, { operationName: 'unknown', operationType: 'unknown' }, [result]);
      };
    },
    onValidate({ context, params }) {
      return ({ valid, result }) => {
        if (valid) return;
        const { name, type } = describeOperation(params.documentAST);
        refused(context, { operationName: name, operationType: type }, result as readonly GraphQLError[]);
      };
    },
    onExecute({ args }) {
      const { name, type } = describeOperation(args.document, args.operationName);
      const log = logOf(args.contextValue);
      const started = performance.now();
      const done = (result: ExecutionResult) =>
        log.info(
          {
            operationName: name,
            operationType: type,
            outcome: outcomeOf(result),
            durationMs: Math.round(performance.now() - started),
            ...(result.errors?.length ? { errorCodes: errorCodes(result.errors) } : {}),
          },
          'operation completed',
        );
      return {
        onExecuteDone({ result }) {
          // @defer/@stream are not enabled, so execution answers one result.
          if (isAsyncIterable(result)) return;
          // Before yoga masks them (its masking plugin comes after every plugin of ours).
          if (result.errors?.length) markErrors(result.errors, log);
          done(result);
        },
      };
    },
    onSubscribe({ args }) {
      const { name, type } = describeOperation(args.document, args.operationName);
      const log = logOf(args.contextValue);
      const started = performance.now();
      return {
        onSubscribeResult({ result, setResult }) {
          const fields = { operationName: name, operationType: type };
          if (!isAsyncIterable(result)) {
            log.info({ ...fields, outcome: outcomeOf(result), errorCodes: errorCodes(result.errors) }, 'subscription refused');
            return;
          }
          log.info(fields, 'subscription started');
          setResult(new LoggedStream(result[Symbol.asyncIterator](), log, fields, started));
        },
      };
    },
  };
}

/**
 * A subscription's stream as the operation log follows it: one "subscription ended" line, whichever way it ends
 * (done, returned by the transport, or an error the stream throws, after which the transport may still return
 * it). One object per subscription, its methods on the prototype: envelop's onEnd and onSubscribeError would
 * wrap the stream twice in objects of per-stream closures, held for as long as the subscriber stays
 * (bench/RESULTS.md, 0r).
 */
class LoggedStream<T> implements AsyncIterableIterator<T> {
  private ended = false;

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly log: Logger,
    private readonly fields: { operationName: string; operationType: string },
    private readonly started: number,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    return this.source.next().then(
      (step) => {
        if (step.done) this.end('ok');
        return step;
      },
      (error: unknown) => {
        this.end('error');
        throw error;
      },
    );
  }

  return(value?: unknown): Promise<IteratorResult<T>> {
    this.end('ok');
    return this.source.return?.(value) ?? Promise.resolve({ done: true, value: undefined });
  }

  throw(error?: unknown): Promise<IteratorResult<T>> {
    this.end('error');
    return this.source.throw?.(error) ?? Promise.reject(error);
  }

  private end(outcome: 'ok' | 'error'): void {
    if (this.ended) return;
    this.ended = true;
    this.log.info({ ...this.fields, outcome, durationMs: Math.round(performance.now() - this.started) }, 'subscription ended');
  }
}
