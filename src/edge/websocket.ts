// graphql-ws over WebSocket on the HTTP server's /graphql path. Operations execute through yoga's envelop
// (getEnveloped), so a WebSocket operation gets the same plugins, error masking and fresh per-operation
// context as one over HTTP or SSE.

import type { IncomingMessage, Server } from 'node:http';
import type { ExecutionArgs, GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { RequestCache } from '@pothos/plugin-scope-auth';
import { makeServer } from 'graphql-ws';
import type { GraphQLParams, OnParamsEventPayload, YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config.js';
import { serveGraphqlWs, type AdapterLog } from './graphql-ws-adapter.js';
import { answerUpgradeRefusal, refuseRequestTarget } from './request-target.js';
import { refusalError } from '../security/refusal.js';
import { continuingTrace } from '../telemetry/spans.js';
import type { Caller } from '../security/scopes.js';
import type { WebSocketPolicy } from '../security/security.js';
import { missingKey } from '../security/use-api-keys.js';
import { gatewayError } from '../errors/gateway-error.js';
import { CLOSE_FORBIDDEN, CLOSE_RATE_LIMITED, CLOSE_TOKEN_EXPIRED, CLOSE_TOO_MANY_CONNECTIONS } from '../errors/close-codes.js';

/** What one caller may make the WebSocket endpoint hold (config.ts has the variables and defaults). */
export interface WebSocketLimits {
  /** WS_MAX_PAYLOAD_BYTES */
  maxPayloadBytes: number;
  /** WS_MAX_SUBSCRIPTIONS_PER_SOCKET */
  maxOperationsPerSocket: number;
  /** WS_MAX_CONNECTIONS_PER_KEY */
  maxConnectionsPerKey: number;
  /** WS_MAX_BUFFERED_BYTES */
  maxBufferedBytes: number;
}

export function webSocketLimits(config: Config): WebSocketLimits {
  return {
    maxPayloadBytes: config.WS_MAX_PAYLOAD_BYTES,
    maxOperationsPerSocket: config.WS_MAX_SUBSCRIPTIONS_PER_SOCKET,
    maxConnectionsPerKey: config.WS_MAX_CONNECTIONS_PER_KEY,
    maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES,
  };
}

/**
 * An error as sent over WebSocket: without `extensions.http`, which yoga's plugins set for its HTTP layer (the
 * status to answer with) and which means nothing on a socket.
 */
function formatForSocket(error: GraphQLError): GraphQLFormattedError {
  const formatted = { ...error.toJSON() };
  if (!formatted.extensions) return formatted;
  const extensions = { ...formatted.extensions };
  delete extensions.http;
  if (Object.keys(extensions).length > 0) formatted.extensions = extensions;
  else delete formatted.extensions;
  return formatted;
}

const hasHttp = (error: GraphQLError) => error.extensions?.http !== undefined;

const FORBIDDEN_REASONS = {
  missing: 'Forbidden: send the API key in the connection_init payload: {"authorization":"Bearer <key>"}',
  malformed: 'Forbidden: connection_init payload "authorization" must be "Bearer <key>"',
  unknown: 'Forbidden: unknown API key or refused access token in connection_init "authorization"; send a valid one',
  placeholder: `Forbidden: "authorization" is Bearer undefined, null or empty: the client's key variable is unset (a client bug)`,
};

function operationsPerSocketExceeded(max: number): GraphQLError {
  return gatewayError('SUBSCRIPTIONS_PER_SOCKET_EXCEEDED', { limit: max });
}

/** What a WebSocket operation adds to yoga's initial context in place of the fetch Request of HTTP. */
export interface WebSocketInitialContext {
  transport: 'websocket';
  /**
   * Who the connection was admitted as at connection_init, from the `authorization` of its payload, else the
   * upgrade request's header.
   */
  caller: Caller;
  connectionParams: Readonly<Record<string, unknown>> | undefined;
}

export function isWebSocketContext(initial: object): initial is WebSocketInitialContext {
  return (initial as Partial<WebSocketInitialContext>).transport === 'websocket';
}

export interface WebSocketEndpoint {
  /**
   * Closes every socket with 1001 (Going Away), which graphql-ws clients answer by reconnecting. Sockets
   * whose peer has not completed the closing handshake by the deadline are cut.
   */
  close(deadlineMs: number): Promise<void>;
}

type EnvelopedArgs = ExecutionArgs & {
  /** The caller's trace, continued by the operation's span (telemetry/spans.ts). */
  traceparent: string | undefined;
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
};

/**
 * What a connection keeps of its upgrade request, for its whole life: the one header it may need, not the
 * IncomingMessage (headers, raw headers, stream state: ~1 KB of every idle socket).
 */
interface Extra {
  socket: WebSocket;
  authorization: string | null;
  /** The peer's address: keyless development rate-limits per address. */
  address: string | undefined;
  /** Set once connection_init is admitted: each subscribe is the same caller's. */
  caller: Caller | null;
  /** The upgrade request's W3C traceparent: the trace an operation continues when its payload names none. */
  traceparent: string | undefined;
}

/** The trace a subscribe continues: `extensions.traceparent` of its payload, else the upgrade request's. */
function traceparentOf(payload: { extensions?: Record<string, unknown> | null }, extra: Extra): string | undefined {
  const own = payload.extensions?.traceparent;
  return typeof own === 'string' ? own : extra.traceparent;
}

function authorizationOf(params: Readonly<Record<string, unknown>> | undefined, extra: Extra): string | null {
  const fromParams = params?.authorization ?? params?.Authorization;
  if (typeof fromParams === 'string') return fromParams;
  return extra.authorization;
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

// Any yoga instance: its context types appear contravariantly (plugin hooks), so neither `object` nor a
// generic accepts the gateway's GatewayContext and a test's bare one alike.
export function attachWebSocket(
  server: Server,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  yoga: YogaServerInstance<any, any>,
  policy: WebSocketPolicy,
  limits: WebSocketLimits,
  log: AdapterLog,
): WebSocketEndpoint {
  // Open sockets per API key name on this replica, counted from connection_ack to close.
  const connections = new Map<string, number>();
  const release = (name: string) => {
    const open = (connections.get(name) ?? 1) - 1;
    if (open > 0) connections.set(name, open);
    else connections.delete(name);
  };
  // noServer: ws would otherwise re-emit the HTTP server's errors (a busy port at listen) as its own, which
  // graphql-ws reports as an internal WebSocket error; upgrades are handed over explicitly instead.
  const wss = new WebSocketServer({
    noServer: true,
    path: yoga.graphqlEndpoint,
    maxPayload: limits.maxPayloadBytes,
    verifyClient: ({ req }: { req: IncomingMessage }) => policy.upgradeAllowed(req),
  });
  server.on('upgrade', (req, socket, head) => {
    // The request-target check HTTP requests meet first (http-entry.ts), with the same answer and log line.
    const malformed = refuseRequestTarget(req);
    if (malformed) {
      log.debug({ code: malformed.code, method: req.method }, 'request refused before authentication');
      return answerUpgradeRefusal(socket, malformed);
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const graphqlWs = makeServer<Record<string, unknown> | undefined, Extra>({
    // The same authentication and rate limit as HTTP: an unknown key cannot open a connection (graphql-ws
    // closes it with 4403), and connection_init and every subscribe spend from the key's rate like an HTTP
    // operation does.
    onConnect: async (ctx) => {
      const authorization = authorizationOf(ctx.connectionParams, ctx.extra);
      const caller = await policy.identify(authorization);
      if (!caller) {
        // graphql-ws would close with a bare "Forbidden": the reason says where the key goes (at most 123 bytes).
        ctx.extra.socket.close(CLOSE_FORBIDDEN, FORBIDDEN_REASONS[missingKey(authorization)]);
        return false;
      }
      const refusal = await policy.rateLimit.spend(caller, ctx.extra.address);
      // Rate limiting is not a bad key: its own close code, and when to come back (the reason is all a close
      // frame can carry).
      if (refusal) {
        ctx.extra.socket.close(CLOSE_RATE_LIMITED, `Too many requests: retry in ${refusal.headers['retry-after'] ?? 1}s`);
        return false;
      }
      // Gone while its key was checked: its `close` has been and gone, and would never give the place back.
      if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false;
      const { name } = caller;
      const open = connections.get(name) ?? 0;
      if (open >= limits.maxConnectionsPerKey) {
        const reason = `Too many connections: at most ${limits.maxConnectionsPerKey} per API key (WS_MAX_CONNECTIONS_PER_KEY)`;
        ctx.extra.socket.close(CLOSE_TOO_MANY_CONNECTIONS, reason);
        return false;
      }
      connections.set(name, open + 1);
      const expiry = closeAtExpiry(ctx.extra.socket, caller, policy.tokenGraceMs ?? 0);
      ctx.extra.socket.once('close', () => {
        release(name);
        if (expiry) clearTimeout(expiry);
      });
      ctx.extra.caller = caller;
      return true;
    },
    // Only results and errors that carry extensions.http are rewritten; graphql-ws sends the others as they are.
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors?.some(hasHttp) ? { ...result, errors: result.errors.map(formatForSocket) } : undefined,
    onError: (_ctx, _id, _payload, errors) => (errors.some(hasHttp) ? errors.map(formatForSocket) : undefined),
    execute: (args) => continuingTrace((args as EnvelopedArgs).traceparent, () => (args as EnvelopedArgs).execute(args)) as never,
    subscribe: async (args) => {
      const result = await continuingTrace((args as EnvelopedArgs).traceparent, () => (args as EnvelopedArgs).subscribe(args));
      // Scope auth checks a subscription once, when it starts (authorizeOnSubscribe; its events' fields carry no
      // scopes), but keeps that check's cache (five Maps, ~1.3 KB) for as long as the context lives: the
      // subscription's whole life. Dropped once the check is done; a later check would simply build it again.
      RequestCache.clearForContext(args.contextValue as object);
      return result as never;
    },
    onSubscribe: async (ctx, _id, payload) => {
      // graphql-ws has registered this operation already: more than the cap means one too many.
      if (Object.keys(ctx.subscriptions).length > limits.maxOperationsPerSocket) return [operationsPerSocketExceeded(limits.maxOperationsPerSocket)];
      // graphql-ws passes no subscribe before connection_ack (4401 instead), which onConnect gives with the caller set.
      const caller = ctx.extra.caller!;
      const spent = policy.rateLimit.spend(caller, ctx.extra.address);
      const refusal = spent instanceof Promise ? await spent : spent;
      if (refusal) return [refusalError(refusal)];
      const initial: WebSocketInitialContext = { transport: 'websocket', caller, connectionParams: ctx.connectionParams };
      // The access pipeline's params stage (trusted documents), which yoga runs over HTTP only. There is no fetch
      // Request: yoga's own hooks skip what needs one, and the pipeline's use none.
      let params = payload as GraphQLParams;
      if (policy.paramsHooks.length > 0) {
        const setParams = (changed: GraphQLParams) => (params = changed);
        try {
          for (const onParams of policy.paramsHooks) {
            const pending = onParams({ params, setParams, context: initial, fetchAPI: yoga.fetchAPI } as unknown as OnParamsEventPayload);
            // No extra turn of the event loop for a hook that answers at once (trusted documents do).
            if (pending) await pending;
          }
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('The operation could not be read.')];
        }
      }
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped(initial);
      let document;
      try {
        document = parse(params.query!);
      } catch (error) {
        return [error instanceof GraphQLError ? error : new GraphQLError('The query could not be parsed.')];
      }
      // A rule that throws must fail this operation only: thrown out of onSubscribe it would close the socket
      // (4500) and every other subscription on it.
      let errors: readonly GraphQLError[];
      try {
        errors = validate(schema, document);
      } catch (error) {
        return [error instanceof GraphQLError ? error : new GraphQLError('The operation could not be validated.')];
      }
      if (errors.length > 0) return errors;
      const args: EnvelopedArgs = {
        schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: await contextFactory(),
        traceparent: traceparentOf(payload, ctx.extra),
        execute,
        subscribe,
      };
      return args;
    },
  });
  const endpoint = serveGraphqlWs(
    wss,
    graphqlWs,
    (socket, req: IncomingMessage): Extra => ({
      socket,
      authorization: req.headers.authorization ?? null,
      address: req.socket.remoteAddress,
      caller: null,
      traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
    }),
    log,
    { maxBufferedBytes: limits.maxBufferedBytes },
  );
  return {
    async close(deadlineMs) {
      const deadline = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, deadlineMs);
      try {
        await endpoint.dispose();
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
