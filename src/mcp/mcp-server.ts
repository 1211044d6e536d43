import type { IncomingMessage } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SpanStatusCode } from '@opentelemetry/api';
import type { GraphQLSchema } from 'graphql';
import type { McpSubscriptionRecords } from '../cluster/mcp-subscriptions.js';
import { describeFailure, type DescribedFailure } from '../errors/gateway-error.js';
import type { McpToolOutcome } from '../ops/mcp-metrics.js';
import { describeMissing, type Caller } from '../security/scopes.js';
import { inNamedSpan } from '../telemetry/spans.js';
import { DEVELOPMENT_TOOLS, EXECUTE_TOOL, SEARCH_SCHEMA_TOOL, searchSchema } from './development-tools.js';
import { mayCall, missingScopesFor, type OperationTool } from './operation-tools.js';
import { ORDER_TEMPLATE, orderLinks, orderUuidOf, READ_ORDER_TOOL, resourceHash } from './order-resource.js';
import { runOperation, watchOperation, type AnyYoga } from './run-operation.js';
import { errorTypes, failedResult, toolResult, type GraphQLAnswer } from './tool-results.js';

// The MCP server one message meets, made for its caller (the transport is stateless: a server per message, so
// nothing of one caller's outlives its message): the tools and the order resource its scopes allow, each tool
// call and resource read run as the caller through yoga (run-operation.ts), its answer a tool result
// (tool-results.ts), counted by tool and outcome.

export interface McpServerOptions {
  yoga: AnyYoga;
  schema: GraphQLSchema;
  tools: readonly OperationTool[];
  version: string;
  /** SearchSchema and ExecuteGraphQL besides the operations' tools (development-tools.ts). */
  developmentTools: boolean;
  /** Counts each tool call by its outcome (ops/mcp-metrics.ts). */
  onToolCall(tool: string, outcome: McpToolOutcome): void;
  /** Sessions' resource subscriptions, shared by the replicas (resource-stream.ts follows them). */
  subscriptions: McpSubscriptionRecords;
  /** MCP_MAX_SUBSCRIPTIONS: the resources one session may follow at once. */
  maxSubscriptions: number;
}

export interface McpServers {
  /** A server for one message of `caller`, whose HTTP request `req` carries its credentials to the operations. */
  serverFor(caller: Caller, req: IncomingMessage, session: McpSession | null): Server;
  /** The live results of reading resource `uri` as the caller of `req` (resource-stream.ts). */
  watchResource(uri: string, req: IncomingMessage, signal: AbortSignal): AsyncIterable<GraphQLAnswer>;
}

/** A message's session: the id its client sent, and the subscriptions' key of it (the caller's own). */
export interface McpSession {
  id: string;
  key: string;
}

const INSTRUCTIONS =
  'Tools of a reward (gift card) gateway. A tool that creates an order or adds funds takes an idempotency `id`: make ' +
  'a new one per new order, and reuse exactly the same input (same id) to retry after a timeout or a failure; the ' +
  'order is then made once. A failure comes back as a result with `isError` and `structuredContent.error`, whose ' +
  '`next` or `message` says what to do.';

/** MCP's error code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** The variables GetOrder reads a resource with: by subscribing and by the stream alike, so their hashes compare. */
export const orderVariables = (uri: string): Record<string, unknown> => ({ ref: orderUuidOf(uri) });

/** Subscriptions belong to a session: without one there is no stream to notify. */
function sessionOf(session: McpSession | null): McpSession {
  if (session) return session;
  throw new McpError(
    ErrorCode.InvalidRequest,
    'Subscribing needs a session: send the Mcp-Session-Id header the answer to initialize carried (MCP clients do by themselves).',
  );
}

/** What the store of subscriptions failing (Redis hung or down) answers: what to do, not the driver's words. */
export const STORE_UNAVAILABLE = (what: string) => `The shared store of subscriptions (Redis) does not answer now: ${what} again shortly.`;

const storeUnavailable = (what: string, uri: string) => (): never => {
  throw new McpError(ErrorCode.InternalError, STORE_UNAVAILABLE(what), { uri });
};

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

export function mcpServerFactory({
  yoga,
  schema,
  tools,
  version,
  developmentTools,
  onToolCall,
  subscriptions,
  maxSubscriptions,
}: McpServerOptions): McpServers {
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

  /** The order `uri` names, read with GetOrder as the caller, or the MCP error a client is answered with. */
  async function readOrderAs(caller: Caller, req: IncomingMessage, tool: OperationTool, uri: string): Promise<Record<string, unknown>> {
    const uuid = orderUuidOf(uri);
    if (uuid === null) throw new McpError(RESOURCE_NOT_FOUND, `No resource is named ${uri}: orders are reward://campaign/<uuid>.`, { uri });
    if (!mayCall(tool, caller.scopes)) {
      const { message, extensions } = forbidden(caller, tool);
      throw new McpError(ErrorCode.InvalidRequest, message, extensions);
    }
    const answer = await runOperation(yoga, { ...tool.request, operationName: tool.name }, orderVariables(uri), req);
    if (answer.data?.campaign) return answer.data;
    const error = answer.errors?.[0];
    if (error) throw new McpError(ErrorCode.InternalError, error.message, error.extensions);
    throw new McpError(RESOURCE_NOT_FOUND, `No order has the uuid ${uuid}.`, { uri });
  }

  function serverFor(caller: Caller, req: IncomingMessage, session: McpSession | null): Server {
    const server = new Server(
      { name: 'reward-gateway', version },
      {
        capabilities: { tools: { listChanged: false }, ...(readOrder ? { resources: { subscribe: true, listChanged: false } } : {}) },
        instructions: INSTRUCTIONS,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...tools.filter((tool) => mayCall(tool, caller.scopes)).map(listed), ...(developmentTools ? DEVELOPMENT_TOOLS : [])],
    }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
      // The tool's name as the span's, when it is one: a name the client made up could be any text, a secret too.
      const known = byName.has(params.name) || (developmentTools && (params.name === SEARCH_SCHEMA_TOOL || params.name === EXECUTE_TOOL));
      const tool = known ? params.name : 'unknown';
      return inNamedSpan(
        `tools/call ${tool}`,
        { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool },
        async (span) => {
          const result = await callTool(params.name, params.arguments ?? {});
          if (result.isError) {
            const { code, type } = (result.structuredContent?.error ?? {}) as { code?: unknown; type?: unknown };
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.setAttribute('error.type', String(type ?? code ?? 'tool_error'));
          }
          return result;
        },
      );
    });

    async function callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
      if (developmentTools && (name === SEARCH_SCHEMA_TOOL || name === EXECUTE_TOOL)) return developmentTool(name, args, req);
      const tool = byName.get(name);
      if (!tool) {
        onToolCall('unknown', 'refused');
        return failedResult({ message: `No tool is named ${name}: list the tools to see those you may call.` });
      }
      if (!mayCall(tool, caller.scopes)) {
        onToolCall(tool.name, 'refused');
        const { message, extensions } = forbidden(caller, tool);
        return failedResult({ ...extensions, message, retryable: false });
      }
      const answer = await runOperation(yoga, { ...tool.request, operationName: tool.name }, args, req);
      const result = toolResult(answer, failures);
      onToolCall(tool.name, result.isError ? 'failed' : 'ok');
      if (!result.isError) result.content.push(...orderLinks(answer.data));
      return result;
    }
    if (readOrder) {
      server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
        resourceTemplates: mayCall(readOrder, caller.scopes) ? [ORDER_TEMPLATE] : [],
      }));
      // Orders are many and found with the tools: none is listed, each is read by the URI a tool answered with.
      server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
      server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
        const data = await readOrderAs(caller, req, readOrder, params.uri);
        return { contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(data.campaign) }] };
      });
      // Subscribing reads the order once: the client learns at once of one it may not read or that does not
      // exist, and the read is what the session's stream compares its first live result with.
      server.setRequestHandler(SubscribeRequestSchema, async ({ params }) => {
        const { key } = sessionOf(session);
        const data = await readOrderAs(caller, req, readOrder, params.uri);
        // Subscribing again is harmless (the same subscription), so saying so is true even if this one was kept.
        const subscribed = await subscriptions
          .subscribe(key, params.uri, resourceHash(data), maxSubscriptions)
          .catch(storeUnavailable('subscribe', params.uri));
        if (!subscribed.subscribed)
          throw new McpError(
            ErrorCode.InvalidRequest,
            `This session follows ${subscribed.count} resources, the most MCP_MAX_SUBSCRIPTIONS allows: unsubscribe from one first.`,
            { uri: params.uri, maxSubscriptions },
          );
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async ({ params }) => {
        await subscriptions.unsubscribe(sessionOf(session).key, params.uri).catch(storeUnavailable('unsubscribe', params.uri));
        return {};
      });
    }
    return server;
  }

  return {
    serverFor,
    // The live read of a subscribed order: the very request a read makes, marked @live in its document, over SSE.
    watchResource: (uri, req, signal) =>
      readOrder ? watchOperation(yoga, { ...readOrder.request, operationName: readOrder.name }, orderVariables(uri), req, signal) : emptyWatch(),
  };
}

async function* emptyWatch(): AsyncGenerator<never> {}
