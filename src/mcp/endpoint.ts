import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { describeFailure, errorBody, type DescribedFailure } from '../errors/gateway-error.js';
import { SCOPES } from '../security/scopes.js';
import type { Admission } from '../security/token-callers.js';
import { bodyLimitFailure } from '../security/use-body-limit.js';
import type { RateLimit } from '../security/use-rate-limit.js';
import { originAllowed } from '../security/use-csrf-prevention.js';
import type { Caller } from '../security/scopes.js';
import { ownerOf } from '../webhooks/store.js';
import { MCP_PATH, RESOURCE_METADATA_PATH } from './paths.js';
import { mcpServerFactory, STORE_UNAVAILABLE, type McpServerOptions, type McpSession } from './mcp-server.js';
import { serveResourceStream } from './resource-stream.js';
import { origin } from './run-operation.js';

// /mcp: the Model Context Protocol over Streamable HTTP, stateless (any replica answers any call, as for
// /graphql), answering POSTs with JSON. Each request meets what a GraphQL request meets before yoga, in the same
// order and with the same refusals: Origin, the body's bound, authentication (the same API keys and access
// tokens; a 401 carries the WWW-Authenticate MCP's authorization asks for, pointing at
// /.well-known/oauth-protected-resource), the caller's rate; then the MCP server made for that caller
// (mcp-server.ts) answers it.
//
// Sessions exist for resource subscriptions only, and hold no replica's memory: initialize's answer carries a new
// random Mcp-Session-Id; the session's subscriptions are kept in the shared store under a hash of the caller and
// that id (so an id is worth nothing to another caller), made by a POST on any replica and followed by the
// replica holding the session's event stream (GET, resource-stream.ts). DELETE ends them, and the session: a
// request naming it afterwards is a 404, as MCP asks.

export interface McpEndpointOptions {
  /** The server each message meets (mcp-server.ts). */
  server: McpServerOptions;
  /** Authentication of the access pipeline (use-api-keys.ts): the caller an Authorization value names, or why not. */
  authenticate(authorization: string | undefined): Admission | Promise<Admission>;
  /** The access pipeline's rate per caller (use-rate-limit.ts), which messages that run no operation spend from. */
  rateLimit: RateLimit;
  /** CORS_ORIGINS: the browser origins besides the gateway's own whose pages may call it. */
  corsOrigins: readonly string[];
  /** MAX_BODY_BYTES: a message's bound, as a GraphQL request's. */
  maxBodyBytes: number;
  /** The OpenID issuers whose access tokens are accepted, for the protected resource metadata. */
  issuers: readonly string[];
  /** A resource could not be followed for a session's stream, for now (said to the log). */
  onWatchFailed(uri: string, reason: string): void;
  /** AUTH_JWT_CLOCK_TOLERANCE_S in ms: how long after its token's `exp` a session's stream ends. */
  tokenGraceMs: number;
}

export type Route = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface McpEndpoint {
  /**
   * By path: /mcp (POST: one JSON-RPC message or batch of a client; GET: the session's event stream; DELETE:
   * the session's end), and the protected resource metadata (RFC 9728), at the root and under /mcp's path
   * suffix, where clients of MCP's authorization look first.
   */
  routes: Readonly<Record<string, Route>>;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

function answerJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** The catalogue's refusal, its challenge naming where the resource's metadata is (MCP authorization). */
function refuse(req: IncomingMessage, res: ServerResponse, refusal: DescribedFailure): void {
  const headers = { ...refusal.headers };
  const challenge = headers['www-authenticate'];
  if (challenge) {
    const metadata = `resource_metadata="${origin(req)}${RESOURCE_METADATA_PATH}${MCP_PATH}"`;
    headers['www-authenticate'] = challenge === 'Bearer' ? `Bearer ${metadata}` : `${challenge}, ${metadata}`;
  }
  answerJson(res, refusal.status, errorBody(refusal), headers);
}

const SESSION_HEADER = 'mcp-session-id';
/** The ids this gateway hands out (random UUIDs); anything else was not. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The session a request names, kept under the caller's own key; null without one; 'malformed' for an id not ours. */
function sessionOf(req: IncomingMessage, caller: Caller): McpSession | null | 'malformed' {
  const id = req.headers[SESSION_HEADER];
  if (id === undefined) return null;
  if (typeof id !== 'string' || !SESSION_ID.test(id)) return 'malformed';
  return {
    id,
    key: createHash('sha256')
      .update(`${ownerOf(caller)}\n${id}`)
      .digest('base64url')
      .slice(0, 32),
  };
}

const isInitialize = (message: unknown): boolean => (message as { method?: unknown } | null)?.method === 'initialize';

/** The methods whose work is an operation run through yoga, which spends from the rate there. */
const RUN_IN_YOGA = new Set(['tools/call', 'resources/read']);

/** Whether a JSON-RPC message spends from the rate at /mcp: a request (it has an id) that runs no operation. */
const spendsHere = (message: unknown): boolean => {
  const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
  return typeof method === 'string' && id !== undefined && !RUN_IN_YOGA.has(method);
};

/** The body's JSON (its length already bounded by Content-Length), or null when it is not JSON. */
async function readMessages(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

export function createMcpEndpoint({
  server,
  authenticate,
  rateLimit,
  corsOrigins,
  maxBodyBytes,
  issuers,
  onWatchFailed,
  tokenGraceMs,
}: McpEndpointOptions): McpEndpoint {
  const { serverFor, watchResource } = mcpServerFactory(server);
  const stream = { records: server.subscriptions, watch: watchResource, onWatchFailed };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE')
      return answerJson(res, 405, rpcError(-32000, 'Method not allowed: POST JSON-RPC messages to /mcp.'), { allow: 'POST, GET, DELETE' });
    // MCP's transport asks every server to check Origin (DNS rebinding); a browser's page calls only from the
    // origins /graphql serves. Then, in the access pipeline's order, the body's bound and who is calling.
    if (!originAllowed(req, corsOrigins)) return refuse(req, res, describeFailure('CORS_ORIGIN_NOT_ALLOWED'));
    const tooLarge = bodyLimitFailure(req.method, req.headers['content-length'], maxBodyBytes);
    if (tooLarge) return refuse(req, res, tooLarge);
    const admission = await authenticate(req.headers.authorization);
    if ('refusal' in admission) return refuse(req, res, admission.refusal);
    const session = sessionOf(req, admission.caller);
    if (session === 'malformed')
      return answerJson(res, 404, rpcError(-32001, 'Mcp-Session-Id is not a session of this gateway: initialize again without it.'));
    // MCP: once a session is ended, a request naming it is a 404, and the client starts a new one. When the store
    // does not answer, the request goes on: the id is worth nothing to another caller, and a DELETE the store
    // did not answer was answered 503, so its client sends it again and learns then whether it took effect.
    if (session && (await server.subscriptions.ended(session.key).catch(() => false)))
      return answerJson(res, 404, rpcError(-32001, 'This session was ended (DELETE /mcp): initialize again without Mcp-Session-Id.'));
    if (req.method !== 'POST') {
      // What the transport checks on a POST, for the GET and DELETE it does not see: MCP asks for a 400.
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
        return answerJson(
          res,
          400,
          rpcError(-32000, `Unsupported MCP-Protocol-Version ${version}: this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`),
        );
      const refusal = await rateLimit.spend(admission.caller, req.socket.remoteAddress);
      if (refusal) return refuse(req, res, refusal);
      if (!session) return answerJson(res, 400, rpcError(-32000, 'Send the Mcp-Session-Id header the answer to initialize carried.'));
      if (req.method === 'DELETE') {
        const ended = await server.subscriptions.end(session.key).then(
          () => true,
          () => false,
        );
        if (!ended) return answerJson(res, 503, rpcError(-32000, STORE_UNAVAILABLE('end the session (DELETE)')), { 'retry-after': '1' });
        res.writeHead(204).end();
        return;
      }
      if (!req.headers.accept?.includes('text/event-stream'))
        return answerJson(res, 406, rpcError(-32000, 'The session’s stream is an event stream: send Accept: text/event-stream.'));
      const { expiresAt } = admission.caller;
      return serveResourceStream(
        stream,
        session.key,
        req,
        res,
        { [SESSION_HEADER]: session.id },
        expiresAt == null ? null : expiresAt + tokenGraceMs,
      );
    }
    const messages = await readMessages(req);
    if (messages === null) return answerJson(res, 400, rpcError(ErrorCode.ParseError, 'The body is not JSON.'));
    // A message that runs an operation spends from the caller's rate in yoga, as that operation; any other request
    // (initialize, listing) spends here, so that listing in a loop is bounded like querying in one.
    if ([messages].flat().some(spendsHere)) {
      const refusal = await rateLimit.spend(admission.caller, req.socket.remoteAddress);
      if (refusal) return refuse(req, res, refusal);
    }
    // A new session with every initialize: the transport, stateless, neither makes nor checks one.
    if (!session && [messages].flat().some(isInitialize)) res.setHeader(SESSION_HEADER, randomUUID());
    const mcp = serverFor(admission.caller, req, session);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, messages);
  }

  const metadata: Route = (req, res) =>
    answerJson(res, 200, {
      resource: `${origin(req)}${MCP_PATH}`,
      authorization_servers: issuers,
      scopes_supported: SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'reward-gateway',
    });

  return { routes: { [MCP_PATH]: handle, [RESOURCE_METADATA_PATH]: metadata, [`${RESOURCE_METADATA_PATH}${MCP_PATH}`]: metadata } };
}
