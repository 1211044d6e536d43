import type { ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { redactValue, type Redact } from './redaction.js';

// Secrets out of the data of every GraphQL result, over every transport (HTTP, SSE, WebSocket; each event of a
// subscription too). Data comes from the reward API, and an answer it gives with status 200 can carry the
// token as much as an error can (a gift's message, a link). The errors of a result are redacted where they are
// masked (error-masking.ts), since yoga masks after every plugin of ours has run.

export function useResponseRedaction(redact: Redact): Plugin {
  const onResult = ({ result, setResult }: { result: ExecutionResult; setResult(result: ExecutionResult): void }) => {
    const data = redactValue(result.data, redact) as ExecutionResult['data'];
    const extensions = redactValue(result.extensions, redact) as ExecutionResult['extensions'];
    if (data !== result.data || extensions !== result.extensions) setResult({ ...result, data, extensions });
  };
  return {
    onExecute: () => ({ onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, onResult) }),
    onSubscribe: () => ({ onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, onResult) }),
  };
}
