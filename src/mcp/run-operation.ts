import type { IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
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

/** The caller's request to /graphql for `operation`: its Authorization and request id, as the message came. */
function requestAsCaller(
  yoga: AnyYoga,
  operation: OperationRequest,
  variables: Record<string, unknown>,
  req: IncomingMessage,
  accept: string,
  signal?: AbortSignal,
): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const requestId = req.headers['x-request-id'];
  if (typeof requestId === 'string') headers['x-request-id'] = requestId;
  return new yoga.fetchAPI.Request(`${origin(req)}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...operation, variables }),
    ...(signal && { signal }),
  });
}

export async function runOperation(
  yoga: AnyYoga,
  operation: OperationRequest,
  variables: Record<string, unknown>,
  req: IncomingMessage,
): Promise<GraphQLAnswer> {
  const request = requestAsCaller(yoga, operation, variables, req, 'application/graphql-response+json, application/json');
  // The Node request as server context: keyless development's rate limit counts by its remote address.
  return answerOf(await yoga.handleRequest(request, { req }));
}

/** A response's one GraphQL answer (a result, or a refusal yoga answered as JSON). */
async function answerOf(response: Response): Promise<GraphQLAnswer> {
  const text = await response.text();
  try {
    return JSON.parse(text) as GraphQLAnswer;
  } catch {
    return { errors: [{ message: `The gateway answered ${response.status} without a GraphQL body.` }] };
  }
}

/**
 * A live query (`@live`) run as the caller over SSE, as any client's: each result yoga sends, the first and then
 * one per change of what it read, until the stream ends or `signal` aborts it. A refusal is the one answer.
 */
export async function* watchOperation(
  yoga: AnyYoga,
  operation: OperationRequest,
  variables: Record<string, unknown>,
  req: IncomingMessage,
  signal: AbortSignal,
): AsyncGenerator<GraphQLAnswer> {
  const request = requestAsCaller(yoga, operation, variables, req, 'text/event-stream', signal);
  const response = await yoga.handleRequest(request, { req });
  // Refused before it could stream (authentication, the rate limit): yoga answers JSON, the refusal the one answer.
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    yield await answerOf(response);
    return;
  }
  if (!response.body) return;
  const answers: GraphQLAnswer[] = [];
  const parser = createParser({
    onEvent({ event, data }) {
      // graphql-sse's distinct connections: `next` events carry results, `complete` ends the stream.
      if ((event === undefined || event === 'next') && data) answers.push(JSON.parse(data) as GraphQLAnswer);
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  // yoga's handleRequest does not end a stream when its request's signal aborts (only a socket's close does):
  // cancelling the body ends the live query, as a client going away would.
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (let chunk = await reader.read(); !chunk.done && !signal.aborted; chunk = await reader.read()) {
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      yield* answers.splice(0);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    cancel();
  }
}
