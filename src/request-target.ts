import type { IncomingMessage, ServerResponse } from 'node:http';

// What a request must look like before anything else reads it. The fetch adapter under yoga builds a URL from
// the Host header and the request target; a target that is not a path (`GET http://evil/graphql`, `OPTIONS *`)
// or a Host no URL can be built from made it throw, and its fallback answered 500 with the stack trace. Such
// requests come from scanners and misconfigured proxies, never from a GraphQL client, so they are refused
// first, with a code naming the problem.

export interface TargetRefusal {
  code: 'ABSOLUTE_FORM_TARGET' | 'ASTERISK_FORM_TARGET' | 'MALFORMED_HOST';
  message: string;
}

/** A DNS name (underscores tolerated, as container names have them), an IPv4 address or a bracketed IPv6 one; an optional port. */
const HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

function hostWellFormed(host: string): boolean {
  const match = HOST.exec(host);
  return match !== null && Number(match[1] ?? 0) <= 65_535 && URL.canParse(`http://${host}/`);
}

/** Why the gateway will not serve this request's target or Host, or null when it may go on. */
export function refuseRequestTarget(req: Pick<IncomingMessage, 'url' | 'headers'>): TargetRefusal | null {
  const target = req.url ?? '/';
  if (target === '*') {
    return {
      code: 'ASTERISK_FORM_TARGET',
      message: 'The request target "*" (as in OPTIONS *) is not served: send requests to a path such as /graphql.',
    };
  }
  if (!target.startsWith('/')) {
    return {
      code: 'ABSOLUTE_FORM_TARGET',
      message: 'A full URL as the request target is not served (this is no proxy): send the path only, such as /graphql.',
    };
  }
  // Without Host (HTTP/1.0) the adapter uses localhost; the loopback rule of the Host check decides as before.
  const host = req.headers.host;
  if (host !== undefined && !hostWellFormed(host)) {
    return { code: 'MALFORMED_HOST', message: 'The Host header is not a host name or IP address with an optional port.' };
  }
  return null;
}

/** The refusal as one JSON line; the connection closes, as nothing well-behaved sent the request. */
export function answerRefusal(res: ServerResponse, { code, message }: TargetRefusal): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  res.writeHead(400, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}
