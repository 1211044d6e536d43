import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { redactError } from './error-masking.js';
import { redactValue, type Redact } from '../redaction/redaction.js';

// Secrets out of what GraphQL answers that error masking does not see, over every transport (HTTP, SSE,
// WebSocket): the errors that refuse a document before it runs, which quote it (a key pasted into a query
// comes back in "Int cannot represent non-integer value: ..."), and the extensions of every result and event
// (hints quote what the caller sent beside what the catalog holds). The errors of a result are redacted where
// they are masked (error-masking.ts), since yoga masks after every plugin of ours has run.
//
// The data is not scanned. What the gateway makes or types itself (cursors, ids, DateTime, Date, Int,
// SafeInt, Boolean, enum values) holds no secret, nor does what the caller sent and gets back; the one
// source of text that may, the upstream, is redacted where it enters (upstream/normalise.ts), once per
// answer, before the cache. Scanning every string of every result blanked parts of dates, ids and cursors
// that happened to share characters with a key, and cost CPU on every read (issue 36).

type ResultPayload = Parameters<typeof handleStreamOrSingleExecutionResult>[0];

export function useResponseRedaction(redact: Redact): Plugin {
  const onResult = ({ result, setResult }: { result: ExecutionResult; setResult(result: ExecutionResult): void }) => {
    const extensions = redactValue(result.extensions, redact) as ExecutionResult['extensions'];
    if (extensions !== result.extensions) setResult({ ...result, extensions });
  };
  // The same hooks for every operation: envelop keeps what onSubscribe returns for as long as the stream lives.
  const eachResult = (payload: ResultPayload) => handleStreamOrSingleExecutionResult(payload, onResult);
  const afterExecute = { onExecuteDone: eachResult };
  const afterSubscribe = { onSubscribeResult: eachResult };
  return {
    onParse:
      () =>
      ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError) {
          const clean = redactError(result, redact);
          if (clean !== result) replaceParseResult(clean);
        }
      },
    onValidate:
      () =>
      ({ result, setResult }) => {
        const clean = result.map((error) => redactError(error, redact));
        if (clean.some((error, i) => error !== result[i])) setResult(clean);
      },
    onExecute: () => afterExecute,
    onSubscribe: () => afterSubscribe,
  };
}
