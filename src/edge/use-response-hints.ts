import type { ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { Hint } from '../errors/gateway-error.js';

// Notes for the caller that are not errors (context.hints, e.g. a brand code that was probably mistyped) go
// out as the response's `extensions.hints`: a field that answers null as it always did keeps doing so, with no
// entry in `errors` that would make a client with default settings (Apollo's errorPolicy "none") throw. With
// @defer/@stream each hint goes out with the first part sent after it was noted.

export function useResponseHints(): Plugin<{ hints?: Hint[] }> {
  return {
    onExecute({ args }) {
      const hints = args.contextValue.hints;
      if (!hints) return undefined;
      let sent = 0;
      const attach = ({ result, setResult }: { result: ExecutionResult; setResult(result: ExecutionResult): void }) => {
        if (hints.length === sent) return;
        const fresh = hints.slice(sent);
        sent = hints.length;
        setResult({ ...result, extensions: { ...result.extensions, hints: fresh } });
      };
      return { onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, attach) };
    },
  };
}
