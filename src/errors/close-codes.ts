// The codes a WebSocket of the gateway can be closed with: the catalogue's second, small table. graphql-ws
// leaves 4400–4499 to applications where it does not use them itself; the gateway's own mirror the HTTP status
// of the same refusal. Printed into docs/errors.md with the error codes.

export interface CloseCode {
  /** Who closes with it: the gateway itself, graphql-ws (the protocol library) or ws (malformed frames). */
  sentBy: 'gateway' | 'graphql-ws' | 'ws';
  meaning: string;
  /** When and how a client may reconnect. */
  retry: string;
}

export const CLOSE_CODES = {
  1001: { sentBy: 'gateway', meaning: 'The gateway is stopping (Going Away).', retry: 'At once, to another replica.' },
  1002: { sentBy: 'ws', meaning: 'A frame broke the WebSocket protocol.', retry: 'No: fix the client.' },
  1007: { sentBy: 'ws', meaning: 'A text frame that is not UTF-8.', retry: 'No: fix the client.' },
  1009: { sentBy: 'ws', meaning: 'A message over `WS_MAX_PAYLOAD_BYTES`.', retry: 'After making the message smaller.' },
  4400: {
    sentBy: 'gateway',
    meaning:
      'The client broke graphql-transport-ws: not JSON, not a graphql-ws message, a message only servers send, an operation id over 128 characters (the reason says which).',
    retry: 'No: fix the client.',
  },
  4401: {
    sentBy: 'graphql-ws',
    meaning:
      '`subscribe` before `connection_ack`; or, sent by the gateway with a reason containing "expired", the access token the connection was opened with has expired (its `exp` plus `AUTH_JWT_CLOCK_TOLERANCE_S`).',
    retry: 'For an expired token: at once, with a fresh token, resuming from the last cursor. Otherwise no: fix the client.',
  },
  4403: {
    sentBy: 'gateway',
    meaning:
      'The `connection_init` carries no API key or valid access token (unknown, or a token refused as `INVALID_TOKEN` is); the reason says which, and that the key or token goes in its payload as `authorization: "Bearer <key or token>"`.',
    retry: 'After fixing the key or getting a new token.',
  },
  4406: { sentBy: 'graphql-ws', meaning: 'A subprotocol other than `graphql-transport-ws`.', retry: 'No: fix the client.' },
  4408: { sentBy: 'graphql-ws', meaning: 'No `connection_init` within 3 seconds of connecting.', retry: 'Yes, sending `connection_init` at once.' },
  4409: { sentBy: 'graphql-ws', meaning: 'A `subscribe` reused the id of an operation still open on the socket.', retry: 'No: fix the client.' },
  4413: {
    sentBy: 'gateway',
    meaning: 'More than `WS_MAX_BUFFERED_BYTES` of output piled up unread.',
    retry: 'After reading faster or asking for less.',
  },
  4429: {
    sentBy: 'gateway',
    meaning: "`connection_init` over the API key's rate limit (graphql-ws sends it too for a second `connection_init`).",
    retry: 'After the seconds in the reason.',
  },
  4430: {
    sentBy: 'gateway',
    meaning: 'The API key already holds `WS_MAX_CONNECTIONS_PER_KEY` sockets on this replica.',
    retry: 'After closing one of them.',
  },
  4500: { sentBy: 'graphql-ws', meaning: 'An unexpected failure on the server.', retry: 'Yes, with backoff.' },
} as const satisfies Record<number, CloseCode>;

/** A code of the table above: a constant naming one that is not there does not compile. */
type Listed = keyof typeof CLOSE_CODES;

// The codes the gateway's own code closes a socket with, by name. Only these modules define close codes: what a
// socket is closed with is what docs/errors.md lists. graphql-ws's own (4406, 4408, 4409, 4500) are its to send.

/** Shutdown: every socket is closed with it, and graphql-ws clients reconnect. */
export const CLOSE_GOING_AWAY = 1001 satisfies Listed;
/** A message graphql-ws would throw on, or an operation id of any length (graphql-ws-adapter.ts). */
export const CLOSE_PROTOCOL_VIOLATION = 4400 satisfies Listed;
/** The access token a connection was admitted with has expired (graphql-ws's own "Unauthorized"). */
export const CLOSE_TOKEN_EXPIRED = 4401 satisfies Listed;
/** connection_init with no API key or valid access token. */
export const CLOSE_FORBIDDEN = 4403 satisfies Listed;
/** A reader that lets more output than WS_MAX_BUFFERED_BYTES pile up (HTTP 413 is "content too large"). */
export const CLOSE_SLOW_READER = 4413 satisfies Listed;
/** connection_init over the key's rate limit; mirrors HTTP 429. */
export const CLOSE_RATE_LIMITED = 4429 satisfies Listed;
/** A connection_init of an API key that already holds WS_MAX_CONNECTIONS_PER_KEY sockets on this replica. */
export const CLOSE_TOO_MANY_CONNECTIONS = 4430 satisfies Listed;
