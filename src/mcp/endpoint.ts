import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLSchema } from 'graphql';
import { describeFailure, errorBody, type DescribedFailure } from '../errors/gateway-error.js';
import type { McpToolOutcome } from '../ops/mcp-metrics.js';
import { describeMissing, SCOPES, type Caller } from '../security/scopes.js';
import type { Admission } from '../security/token-callers.js';
import { bodyLimitFailure } from '../security/use-body-limit.js';
import type { RateLimit } from '../security/use-rate-limit.js';
import { originAllowed } from '../security/use-csrf-prevention.js';
import { DEVELOPMENT_TOOLS, EXECUTE_TOOL, SEARCH_SCHEMA_TOOL, searchSchema } from './development-tools.js';
import { mayCall, missingScopesFor, type OperationTool } from './operation-tools.js';
import { ORDER_TEMPLATE, orderLinks, orderUuidOf, READ_ORDER_TOOL } from './order-resource.js';
import { origin, runOperation, type AnyYoga } from './run-operation.js';
import { errorTypes, failedResult, toolResult } from './tool-results.js';

// /mcp: the Model Context Protocol over Streamable HTTP, stateless (no session: any replica answers any call, as
// for /graphql), answering JSON rather than event streams. Each POST is authenticated as /graphql's are (the same
// API keys and access tokens); a refusal is the catalogue's 401 with the WWW-Authenticate MCP's authorization
// asks for, pointing at /.well-known/oauth-protected-resource. The caller sees and may call only the tools its
// scopes allow, and each call runs as one GraphQL request through yoga (`yoga.handleRequest`) with the caller's
// own Authorization: the whole access pipeline applies to it as to any client (rate limit, trusted documents,
// cost, scopes per field, redaction, the operation log and metrics under the tool's operation name).

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export interface McpEndpointOptions {
  yoga: AnyYoga;
  schema: GraphQLSchema;
  tools: readonly OperationTool[];
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
  version: string;
  /** SearchSchema and ExecuteGraphQL besides the operations' tools (development-tools.ts). */
  developmentTools: boolean;
  /** Counts each tool call by its outcome (ops/mcp-metrics.ts). */
  onToolCall(tool: string, outcome: McpToolOutcome): void;
}

export type Route = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface McpEndpoint {
  /**
   * By path: POST /mcp (one JSON-RPC message or batch of a client), and the protected resource metadata (RFC
   * 9728), at the root and under /mcp's path suffix, where clients of MCP's authorization look first.
   */
  routes: Readonly<Record<string, Route>>;
}

const INSTRUCTIONS =
  'Tools of a reward (gift card) gateway. A tool that creates an order or adds funds takes an idempotency `id`: make ' +
  'a new one per new order, and reuse exactly the same input (same id) to retry after a timeout or a failure; the ' +
  'order is then made once. A failure comes back as a result with `isError` and `structuredContent.error`, whose ' +
  '`next` or `message` says what to do.';

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

/** MCP's error code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** The catalogue's FORBIDDEN for a tool (or the resource read with it) the caller's scopes do not allow. */
function forbidden(caller: Caller, tool: OperationTool): DescribedFailure {
  const missing = missingScopesFor(tool, caller.scopes);
  return describeFailure('FORBIDDEN', {
    apiKey: caller.name,
    byToken: caller.kind === 'token',
    field: `the tool ${tool.name}`,
    missing: describeMissing({ kind: 'AllAuthScopes', failures: missing.map((scope) => ({ kind: 'AuthScope', scope })) }),
    missingScopes: missing,
  });
}

function listed(tool: OperationTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    annotations: { readOnlyHint: tool.kind === 'query', openWorldHint: false },
  };
}

export function createMcpEndpoint({
  yoga,
  schema,
  tools,
  authenticate,
  rateLimit,
  corsOrigins,
  maxBodyBytes,
  issuers,
  version,
  developmentTools,
  onToolCall,
}: McpEndpointOptions): McpEndpoint {
  const failures = errorTypes(schema);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  const readOrder = byName.get(READ_ORDER_TOOL);

  async function developmentTool(name: string, args: Record<string, unknown>, req: IncomingMessage): Promise<CallToolResult> {
    let result: CallToolResult;
    if (name === SEARCH_SCHEMA_TOOL) {
      result = toolResult({ data: { matches: searchSchema(schema, typeof args.query === 'string' ? args.query : '') } }, failures);
    } else if (typeof args.query !== 'string') {
      result = failedResult({ message: 'ExecuteGraphQL needs `query`, the GraphQL document to run.' });
    } else {
      const operation = { query: args.query, operationName: typeof args.operationName === 'string' ? args.operationName : undefined };
      const variables = args.variables && typeof args.variables === 'object' ? (args.variables as Record<string, unknown>) : {};
      result = toolResult(await runOperation(yoga, operation, variables, req), failures);
    }
    onToolCall(name, result.isError ? 'failed' : 'ok');
    return result;
  }

  function serverFor(caller: Caller, req: IncomingMessage): Server {
    const server = new Server(
      { name: 'reward-gateway', version },
      { capabilities: { tools: { listChanged: false }, ...(readOrder ? { resources: {} } : {}) }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...tools.filter((tool) => mayCall(tool, caller.scopes)).map(listed), ...(developmentTools ? DEVELOPMENT_TOOLS : [])],
    }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      if (developmentTools && (params.name === SEARCH_SCHEMA_TOOL || params.name === EXECUTE_TOOL))
        return developmentTool(params.name, params.arguments ?? {}, req);
      const tool = byName.get(params.name);
      if (!tool) {
        onToolCall('unknown', 'refused');
        return failedResult({ message: `No tool is named ${params.name}: list the tools to see those you may call.` });
      }
      if (!mayCall(tool, caller.scopes)) {
        onToolCall(tool.name, 'refused');
        const { message, extensions } = forbidden(caller, tool);
        return failedResult({ ...extensions, message, retryable: false });
      }
      const answer = await runOperation(yoga, { ...tool.request, operationName: tool.name }, params.arguments ?? {}, req);
      const result = toolResult(answer, failures);
      onToolCall(tool.name, result.isError ? 'failed' : 'ok');
      if (!result.isError) result.content.push(...orderLinks(answer.data));
      return result;
    });
    if (readOrder) {
      server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
        resourceTemplates: mayCall(readOrder, caller.scopes) ? [ORDER_TEMPLATE] : [],
      }));
      // Orders are many and found with the tools: none is listed, each is read by the URI a tool answered with.
      server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
      server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
        const uuid = orderUuidOf(params.uri);
        if (uuid === null)
          throw new McpError(RESOURCE_NOT_FOUND, `No resource is named ${params.uri}: orders are reward://campaign/<uuid>.`, { uri: params.uri });
        if (!mayCall(readOrder, caller.scopes)) {
          const { message, extensions } = forbidden(caller, readOrder);
          throw new McpError(ErrorCode.InvalidRequest, message, extensions);
        }
        const answer = await runOperation(yoga, { ...readOrder.request, operationName: readOrder.name }, { ref: uuid }, req);
        const order = answer.data?.campaign;
        if (order) return { contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(order) }] };
        const error = answer.errors?.[0];
        if (error) throw new McpError(ErrorCode.InternalError, error.message, error.extensions);
        throw new McpError(RESOURCE_NOT_FOUND, `No order has the uuid ${uuid}.`, { uri: params.uri });
      });
    }
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Stateless: no stream of the server's own to open (GET) and no session to end (DELETE).
    if (req.method !== 'POST')
      return answerJson(
        res,
        405,
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC to /mcp.' }, id: null },
        { allow: 'POST' },
      );
    // MCP's transport asks every server to check Origin (DNS rebinding); a browser's page calls only from the
    // origins /graphql serves. Then, in the access pipeline's order, the body's bound and who is calling.
    if (!originAllowed(req, corsOrigins)) return refuse(req, res, describeFailure('CORS_ORIGIN_NOT_ALLOWED'));
    const tooLarge = bodyLimitFailure(req.method, req.headers['content-length'], maxBodyBytes);
    if (tooLarge) return refuse(req, res, tooLarge);
    const admission = await authenticate(req.headers.authorization);
    if ('refusal' in admission) return refuse(req, res, admission.refusal);
    const messages = await readMessages(req);
    if (messages === null)
      return answerJson(res, 400, { jsonrpc: '2.0', error: { code: ErrorCode.ParseError, message: 'The body is not JSON.' }, id: null });
    // A message that runs an operation spends from the caller's rate in yoga, as that operation; any other request
    // (initialize, listing) spends here, so that listing in a loop is bounded like querying in one.
    if ([messages].flat().some(spendsHere)) {
      const refusal = await rateLimit.spend(admission.caller, req.socket.remoteAddress);
      if (refusal) return refuse(req, res, refusal);
    }
    const server = serverFor(admission.caller, req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
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
