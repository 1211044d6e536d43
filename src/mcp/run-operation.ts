import type { IncomingMessage } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import type { OperationTool } from './operation-tools.js';
import type { GraphQLAnswer } from './tool-results.js';

// An operation run as the caller of an MCP message: one GraphQL request through yoga with the message's
// own Authorization (and request id), so the access pipeline sees it as any client's: authentication, the rate
// limit, trusted documents, limits and cost, scopes per field, redaction, the operation log and metrics under
// the operation's name, which is the tool's. Through yoga's fetch handler rather than run-as-caller.ts: the
// message is an HTTP request, and the pipeline's HTTP stages (body limit, content negotiation, CSRF) apply too.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any yoga instance: see edge/run-as-caller.ts
export type AnyYoga = YogaServerInstance<any, any>;

/** The base URL the client called, as it named it (the resource metadata must name the resource it called). */
export function origin(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-proto'];
  const https = (req.socket as { encrypted?: boolean }).encrypted || forwarded === 'https';
  return `${https ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

/** What is sent to /graphql besides the variables: a document or a trusted document's id, and which operation. */
export type OperationRequest = OperationTool['request'] & { operationName?: string | undefined };

export async function runOperation(
  yoga: AnyYoga,
  operation: OperationRequest,
  variables: Record<string, unknown>,
  req: IncomingMessage,
): Promise<GraphQLAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const requestId = req.headers['x-request-id'];
  if (typeof requestId === 'string') headers['x-request-id'] = requestId;
  const request = new yoga.fetchAPI.Request(`${origin(req)}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...operation, variables }),
  });
  // The Node request as server context: keyless development's rate limit counts by its remote address.
  const response = await yoga.handleRequest(request, { req });
  const text = await response.text();
  try {
    return JSON.parse(text) as GraphQLAnswer;
  } catch {
    return { errors: [{ message: `The gateway answered ${response.status} without a GraphQL body.` }] };
  }
}
