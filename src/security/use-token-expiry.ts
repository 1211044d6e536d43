import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Caller } from './scopes.js';
import { gatewayError } from '../errors/gateway-error.js';

// A subscription or a live query (a query answered as a stream, edge/use-live-queries.ts) over SSE lives no
// longer than the access token it was opened with: at `exp` plus the clock
// tolerance (AUTH_JWT_CLOCK_TOLERANCE_S) the stream sends one error, INVALID_TOKEN saying the token expired, and
// ends; the client reconnects with a fresh token and resumes from its cursor. Keys do not expire. WebSocket
// connections are closed with 4401 instead (edge/ws-admission.ts), so their subscriptions are left to that.

export function useTokenExpiry(graceMs: number): Plugin<{ caller?: Caller; transport?: string }> {
  /** When a stream of this operation must end; null when it may last (a key, or a socket that closes itself). */
  const endOf = ({ caller, transport }: { caller?: Caller; transport?: string }): number | null =>
    caller?.expiresAt == null || transport === 'websocket' ? null : caller.expiresAt + graceMs;
  return {
    onSubscribe({ args }) {
      const endAt = endOf(args.contextValue);
      if (endAt === null) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (Symbol.asyncIterator in result) setResult(untilExpiry(result, endAt));
        },
      };
    },
    onExecute({ args }) {
      const endAt = endOf(args.contextValue);
      if (endAt === null) return;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) setResult(untilExpiry(result, endAt));
        },
      };
    },
  };
}

async function* untilExpiry(source: AsyncIterable<ExecutionResult>, endAt: number): AsyncGenerator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  // setTimeout's longest delay is 2^31 - 1 ms (~24 days); no access token lives that long.
  const expired = new Promise<'expired'>(
    (resolve) => (timer = setTimeout(() => resolve('expired'), Math.min(Math.max(endAt - Date.now(), 0), 2 ** 31 - 1))),
  );
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), expired]);
      if (next === 'expired') {
        yield { errors: [gatewayError('INVALID_TOKEN', { problem: 'expired' }, { onField: true })] };
        return;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    // Not awaited: the source may still be waiting for its next event.
    void iterator.return?.();
  }
}
