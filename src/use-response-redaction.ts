import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { redactError } from './error-masking.js';
import { redactValue, type Redact } from './redaction.js';

// Secrets out of what GraphQL answers that error masking does not see, over every transport (HTTP, SSE,
// WebSocket): the data of every result and of each event of a subscription, since the reward API's answers
// with status 200 can carry the token as much as its errors can (a gift's message, a link); and the errors
// that refuse a document before it runs, which quote it (a key pasted into a query comes back in "Int cannot
// represent non-integer value: ..."). The errors of a result are redacted where they are masked
// (error-masking.ts), since yoga masks after every plugin of ours has run.

export function useResponseRedaction(redact: Redact): Plugin {
  const onResult = ({ result, setResult }: { result: ExecutionResult; setResult(result: ExecutionResult): void }) => {
    const data = redactValue(result.data, redact) as ExecutionResult['data'];
    const extensions = redactValue(result.extensions, redact) as ExecutionResult['extensions'];
    if (data !== result.data || extensions !== result.extensions) setResult({ ...result, data, extensions });
  };
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
    onExecute: () => ({ onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, onResult) }),
    onSubscribe: () => ({ onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, onResult) }),
  };
}
