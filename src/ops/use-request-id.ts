import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

// One request id per GraphQL operation: the caller's `x-request-id` when it is short and plain (so a client or
// proxy can follow its own id through our logs), else a fresh UUID. The id is echoed in a response header,
// written on every log line of the operation and sent upstream, so one that carries a secret (a client sending
// its own API key as its id) would leak it three times: an id holding a run of any secret is refused too. It
// is put on the initial context before anything else runs (`requestIdOf` reads it there for the gateway
// context). An operation over WebSocket has no HTTP request of its own and always gets a fresh id.

export interface RequestIdOptions {
  /** Header read from the request and set on the response. Default `x-request-id`. */
  header?: string;
  /** Whether an id carries a secret (the redactor's `contains`). */
  refuse(id: string): boolean;
  /** Default: `crypto.randomUUID`. */
  generate?: () => string;
}

/** Short and plain: nothing a log line, a header or a URL would need to escape. */
const WELL_FORMED = /^[A-Za-z0-9._-]{1,64}$/;

interface WithRequestId {
  requestId?: string;
}

/** The id `useRequestId` gave this operation's initial context. */
export function requestIdOf(initialContext: object): string {
  const { requestId } = initialContext as WithRequestId;
  if (!requestId) throw new Error('useRequestId is not installed: the operation has no request id');
  return requestId;
}

export function useRequestId({ header = 'x-request-id', refuse, generate = randomUUID }: RequestIdOptions): Plugin<WithRequestId> {
  // Keyed by the fetch Request, which outlives the operation only as long as the response needs it.
  const ids = new WeakMap<Request, string>();
  const idOf = (request: Request): string => {
    let id = ids.get(request);
    if (!id) {
      const sent = request.headers.get(header);
      id = sent && WELL_FORMED.test(sent) && !refuse(sent) ? sent : generate();
      ids.set(request, id);
    }
    return id;
  };

  return {
    onEnveloped({ context, extendContext }) {
      // Typed as always present, but a WebSocket operation's initial context has no fetch Request.
      const request = (context as { request?: Request } | undefined)?.request;
      extendContext({ requestId: request ? idOf(request) : generate() });
    },
    onResponse({ request, response }) {
      response.headers.set(header, idOf(request));
    },
  };
}
