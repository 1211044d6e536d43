import { createHash } from 'node:crypto';
import { context, trace, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { DocumentNode, ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Redact } from '../redaction/redaction.js';
import { tracer } from '../telemetry/spans.js';
import { describeOperation, errorCodes } from './operation.js';

// The operation span: one per GraphQL operation, a child of the request's server span (telemetry/server-span.ts,
// which continued the caller's `traceparent`); over WebSocket, of the caller's span its
// subscribe message or upgrade request named (websocket.ts), else the root of its own trace.
// Named "{type} {name}" with `graphql.operation.name`, `graphql.operation.type` and the document's SHA-256
// (the hash automatic persisted queries use, so a trace can be matched with a trusted document); never the
// variables, never the document's text (literals in it are the caller's data). Execution runs inside it, so
// the loader batches, the upstream attempts and the log lines of the operation are its descendants.
// Installed only when tracing is on (gateway-yoga.ts), last among the plugins, so that the execution it wraps
// is the one the compiled-execution plugin chose.

/** The SHA-256 of each parsed document's text, keyed by the document (yoga caches parsed documents). */
const documentHashes = new WeakMap<DocumentNode, string>();

function sourceText(source: unknown): string | undefined {
  if (typeof source === 'string') return source;
  return typeof source === 'object' && source !== null && 'body' in source && typeof source.body === 'string' ? source.body : undefined;
}

function finish(span: Span, result: ExecutionResult): void {
  if (result.errors?.length) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('reward.graphql.error_codes', errorCodes(result.errors));
  }
  span.end();
}

function startOperationSpan(document: DocumentNode, operationName: string | null | undefined, redact: Redact): Span {
  const { type, ...described } = describeOperation(document, operationName);
  // An operation's name is the client's text: an API key used as one stays out of the span.
  const name = redact(described.name);
  const hash = documentHashes.get(document);
  return tracer.startSpan(`${type} ${name}`, {
    attributes: {
      'graphql.operation.name': name,
      'graphql.operation.type': type,
      ...(hash ? { 'graphql.document.hash': `sha256:${hash}` } : {}),
    },
  });
}

export function useOperationTracing(redact: Redact): Plugin {
  return {
    onParse({ params }) {
      return ({ result }) => {
        if (result instanceof Error || documentHashes.has(result)) return;
        const text = sourceText(params.source);
        if (text !== undefined) documentHashes.set(result, createHash('sha256').update(text).digest('hex'));
      };
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const span = startOperationSpan(args.document, args.operationName, redact);
      const active = trace.setSpan(context.active(), span);
      setExecuteFn((runArgs) => context.with(active, () => executeFn(runArgs)));
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return finish(span, result);
          return { onEnd: () => span.end() };
        },
      };
    },
    // A subscription's span covers setting it up (access checks, the first reads, joining the hub); each event
    // delivered later is a trace of its own linked to the poll that found it (live/).
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const span = startOperationSpan(args.document, args.operationName, redact);
      const active = trace.setSpan(context.active(), span);
      setSubscribeFn((runArgs) => context.with(active, () => subscribeFn(runArgs)));
      return {
        // Ended here either way: envelop's onSubscribeError comes only for an error the stream throws later,
        // when this span has ended.
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return finish(span, result);
          span.end();
        },
      };
    },
  };
}
