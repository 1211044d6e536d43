// Who may hold a WebSocket, decided once per connection at connection_init: the caller its `authorization` names
// (else 4403), one spend of that caller's rate (else 4429), a place among its key's sockets on this replica
// (else 4430), and for an access token a close at its expiry (4401). What each operation on the socket may do is
// the access pipeline's, as over HTTP (run-as-caller.ts); this holds only what belongs to a connection.

import type { WebSocket } from 'ws';
import { CLOSE_FORBIDDEN, CLOSE_RATE_LIMITED, CLOSE_TOKEN_EXPIRED, CLOSE_TOO_MANY_CONNECTIONS } from '../errors/close-codes.js';
import type { Caller } from '../security/scopes.js';
import type { WebSocketPolicy } from '../security/security.js';
import { missingKey } from '../security/use-api-keys.js';

/** What admission reads of a connection (graphql-ws's `extra`, websocket.ts), and the caller it sets. */
export interface Admittee {
  socket: WebSocket;
  /** The upgrade request's Authorization header: the key when connection_init carries none. */
  authorization: string | null;
  /** The peer's address: keyless development rate-limits per address. */
  address: string | undefined;
  /** Set once connection_init is admitted: each subscribe is the same caller's. */
  caller: Caller | null;
}

const FORBIDDEN_REASONS = {
  missing: 'Forbidden: send the API key in the connection_init payload: {"authorization":"Bearer <key>"}',
  malformed: 'Forbidden: connection_init payload "authorization" must be "Bearer <key>"',
  unknown: 'Forbidden: unknown API key or refused access token in connection_init "authorization"; send a valid one',
  placeholder: `Forbidden: "authorization" is Bearer undefined, null or empty: the client's key variable is unset (a client bug)`,
};

function authorizationOf(params: Readonly<Record<string, unknown>> | undefined, admittee: Admittee): string | null {
  const fromParams = params?.authorization ?? params?.Authorization;
  if (typeof fromParams === 'string') return fromParams;
  return admittee.authorization;
}

/**
 * A token's connection lives as long as the token: at its `exp` plus the clock tolerance the socket is closed with
 * 4401, and the client reconnects with a fresh token, resuming from its cursor. Keys do not expire.
 */
function closeAtExpiry(socket: WebSocket, caller: Caller, graceMs: number): NodeJS.Timeout | null {
  if (caller.expiresAt == null) return null;
  // setTimeout's longest delay is 2^31 - 1 ms (~24 days); no access token lives that long.
  const delay = Math.min(Math.max(caller.expiresAt + graceMs - Date.now(), 0), 2 ** 31 - 1);
  return setTimeout(() => socket.close(CLOSE_TOKEN_EXPIRED, 'Token expired: reconnect with a fresh token'), delay).unref();
}

/**
 * graphql-ws's onConnect: true admits the connection; a refused one has been closed with its code and a reason
 * (at most 123 bytes) saying what to do, where graphql-ws would close with a bare "Forbidden".
 */
export function webSocketAdmission(
  policy: Pick<WebSocketPolicy, 'identify' | 'rateLimit' | 'tokenGraceMs'>,
  maxConnectionsPerKey: number,
): (connectionParams: Readonly<Record<string, unknown>> | undefined, admittee: Admittee) => Promise<boolean> {
  // Open sockets per API key name on this replica, counted from connection_ack to close.
  const connections = new Map<string, number>();
  const release = (name: string) => {
    const open = (connections.get(name) ?? 1) - 1;
    if (open > 0) connections.set(name, open);
    else connections.delete(name);
  };
  return async (connectionParams, admittee) => {
    const { socket } = admittee;
    const authorization = authorizationOf(connectionParams, admittee);
    const caller = await policy.identify(authorization);
    if (!caller) {
      socket.close(CLOSE_FORBIDDEN, FORBIDDEN_REASONS[missingKey(authorization)]);
      return false;
    }
    // A connection_init spends from the caller's rate like an HTTP operation. Rate limiting is not a bad key: its
    // own close code, and when to come back (the reason is all a close frame can carry).
    const refusal = await policy.rateLimit.spend(caller, admittee.address);
    if (refusal) {
      socket.close(CLOSE_RATE_LIMITED, `Too many requests: retry in ${refusal.headers['retry-after'] ?? 1}s`);
      return false;
    }
    // Gone while its key was checked: its `close` has been and gone, and would never give the place back.
    if (socket.readyState !== socket.OPEN) return false;
    const { name } = caller;
    const open = connections.get(name) ?? 0;
    if (open >= maxConnectionsPerKey) {
      const reason = `Too many connections: at most ${maxConnectionsPerKey} per API key (WS_MAX_CONNECTIONS_PER_KEY)`;
      socket.close(CLOSE_TOO_MANY_CONNECTIONS, reason);
      return false;
    }
    connections.set(name, open + 1);
    const expiry = closeAtExpiry(socket, caller, policy.tokenGraceMs ?? 0);
    socket.once('close', () => {
      release(name);
      if (expiry) clearTimeout(expiry);
    });
    admittee.caller = caller;
    return true;
  };
}
