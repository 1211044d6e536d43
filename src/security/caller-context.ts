import type { Caller } from './scopes.js';

// An operation that comes without an HTTP request (a WebSocket subscribe, a webhook endpoint's subscription) gives
// yoga this as its initial context in place of the fetch Request: who it runs as, admitted by its transport
// (connection_init, the endpoint's registration). The access pipeline's plugins read the caller from it where they
// read an HTTP request's from authentication, so one plugin holds each rule for every transport.

export interface CallerContext {
  transport: 'websocket' | 'webhook';
  caller: Caller;
  /** The peer's address where there is one (WebSocket): keyless development's rate is per address. */
  address?: string | undefined;
}

export function isCallerContext(initial: unknown): initial is CallerContext {
  const transport = (initial as Partial<CallerContext> | null | undefined)?.transport;
  return transport === 'websocket' || transport === 'webhook';
}
