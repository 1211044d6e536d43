// The WebSocket endpoint: graphql-ws on the HTTP server's /graphql path (graphql-ws-adapter.ts serves the protocol
// on `ws`). A connection is admitted once, at connection_init (ws-admission.ts); each operation on it runs as that
// caller through the access pipeline and yoga's envelop (run-as-caller.ts), so it gets the same plugins, error
// masking and fresh per-operation context as one over HTTP or SSE. This holds what is the socket's own: the
// upgrade, the cap on operations per socket, the trace an operation continues, and errors as a socket sends them.

import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { makeServer } from 'graphql-ws';
import type { GraphQLParams, YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { ConnectionsSettings } from '../ops/config.js';
import { serveGraphqlWs, type AdapterLog } from './graphql-ws-adapter.js';
import { answerUpgradeRefusal, refuseRequestTarget } from './request-target.js';
import { prepareAsCaller, subscribeAsCaller, type PreparedArgs, type Refusal } from './run-as-caller.js';
import { webSocketAdmission, type Admittee } from './ws-admission.js';
import { continuingTrace } from '../telemetry/spans.js';
import type { CallerContext } from '../security/caller-context.js';
import type { WebSocketPolicy } from '../security/security.js';
import { gatewayError } from '../errors/gateway-error.js';

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

export function webSocketLimits(config: ConnectionsSettings): WebSocketLimits {
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

/** What a stage that threw something other than a GraphQLError (a fault, not a rule) is reported as. */
const UNREADABLE = {
  params: 'The operation could not be read.',
  parse: 'The query could not be parsed.',
  validate: 'The operation could not be validated.',
};

/**
 * An operation's refusal as graphql-ws's `error` message. Returned, never thrown: thrown out of onSubscribe it
 * would close the socket (4500) and every other subscription on it.
 */
function socketErrors(refusal: Refusal): readonly GraphQLError[] {
  if (refusal.stage === 'invalid') return refusal.errors;
  return [refusal.thrown instanceof GraphQLError ? refusal.thrown : new GraphQLError(UNREADABLE[refusal.stage])];
}

function operationsPerSocketExceeded(max: number): GraphQLError {
  return gatewayError('SUBSCRIPTIONS_PER_SOCKET_EXCEEDED', { limit: max });
}

/** What a WebSocket operation adds to yoga's initial context in place of the fetch Request of HTTP. */
export interface WebSocketInitialContext extends CallerContext {
  transport: 'websocket';
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

type SocketArgs = PreparedArgs & {
  /** The caller's trace, continued by the operation's span (telemetry/spans.ts). */
  traceparent: string | undefined;
};

/**
 * What a connection keeps of its upgrade request, for its whole life: the one header it may need, not the
 * IncomingMessage (headers, raw headers, stream state: ~1 KB of every idle socket).
 */
interface Extra extends Admittee {
  /** The upgrade request's W3C traceparent: the trace an operation continues when its payload names none. */
  traceparent: string | undefined;
}

/** The trace a subscribe continues: `extensions.traceparent` of its payload, else the upgrade request's. */
function traceparentOf(payload: { extensions?: Record<string, unknown> | null }, extra: Extra): string | undefined {
  const own = payload.extensions?.traceparent;
  return typeof own === 'string' ? own : extra.traceparent;
}

export function attachWebSocket(
  server: Server,
  // Any yoga instance: its context types appear contravariantly (plugin hooks), so neither `object` nor a
  // generic accepts the gateway's GatewayContext and a test's bare one alike.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  yoga: YogaServerInstance<any, any>,
  policy: WebSocketPolicy,
  limits: WebSocketLimits,
  log: AdapterLog,
): WebSocketEndpoint {
  const admit = webSocketAdmission(policy, limits.maxConnectionsPerKey);
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
    // The same authentication as HTTP: an unknown key cannot open a connection.
    onConnect: (ctx) => admit(ctx.connectionParams, ctx.extra),
    // Only results and errors that carry extensions.http are rewritten; graphql-ws sends the others as they are.
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors?.some(hasHttp) ? { ...result, errors: result.errors.map(formatForSocket) } : undefined,
    onError: (_ctx, _id, _payload, errors) => (errors.some(hasHttp) ? errors.map(formatForSocket) : undefined),
    execute: (args) => continuingTrace((args as SocketArgs).traceparent, () => (args as SocketArgs).execute(args)) as never,
    subscribe: (args) => continuingTrace((args as SocketArgs).traceparent, () => subscribeAsCaller(args as SocketArgs)) as never,
    onSubscribe: async (ctx, _id, payload) => {
      // graphql-ws has registered this operation already: more than the cap means one too many.
      if (Object.keys(ctx.subscriptions).length > limits.maxOperationsPerSocket) return [operationsPerSocketExceeded(limits.maxOperationsPerSocket)];
      // graphql-ws passes no subscribe before connection_ack (4401 instead), which admission gives with the caller set.
      const initial: WebSocketInitialContext = {
        transport: 'websocket',
        caller: ctx.extra.caller!,
        address: ctx.extra.address,
        connectionParams: ctx.connectionParams,
      };
      const prepared = await prepareAsCaller(yoga, policy.paramsHooks, payload as GraphQLParams, initial);
      if (!prepared.ok) return socketErrors(prepared.refusal);
      const args: SocketArgs = { ...prepared.args, traceparent: traceparentOf(payload, ctx.extra) };
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
