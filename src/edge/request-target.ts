import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { describeFailure, errorBody } from '../errors/gateway-error.js';

// What a request must look like before anything else reads it. The fetch adapter under yoga builds a URL from
// the Host header and the request target; a target that is not a path (`GET http://evil/graphql`, `OPTIONS *`)
// or a Host no URL can be built from made it throw, and its fallback answered 500 with the stack trace. Such
// requests come from scanners and misconfigured proxies, never from a GraphQL client, so they are refused
// first, with a code naming the problem.

export interface TargetRefusal {
  code: 'ABSOLUTE_FORM_TARGET' | 'ASTERISK_FORM_TARGET' | 'MALFORMED_HOST';
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
  if (target === '*') return { code: 'ASTERISK_FORM_TARGET' };
  if (!target.startsWith('/')) return { code: 'ABSOLUTE_FORM_TARGET' };
  // Without Host (HTTP/1.0) the adapter uses localhost; the loopback rule of the Host check decides as before.
  const host = req.headers.host;
  if (host !== undefined && !hostWellFormed(host)) {
    return { code: 'MALFORMED_HOST' };
  }
  return null;
}

/** The refusal as one JSON line; the connection closes (the catalogue says so), as nothing well-behaved sent the request. */
function refusalAnswer({ code }: TargetRefusal): { status: number; headers: Record<string, string>; body: string } {
  const failure = describeFailure(code);
  const body = JSON.stringify(errorBody(failure));
  const headers = {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
    ...failure.headers,
  };
  return { status: failure.status, headers, body };
}

export function answerRefusal(res: ServerResponse, refusal: TargetRefusal): void {
  const { status, headers, body } = refusalAnswer(refusal);
  res.writeHead(status, headers);
  res.end(body);
}

/** The same answer to an upgrade request, which has its socket and no ServerResponse; the socket closes after it. */
export function answerUpgradeRefusal(socket: Duplex, refusal: TargetRefusal): void {
  const { status, headers, body } = refusalAnswer(refusal);
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
