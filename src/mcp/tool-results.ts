import { isInterfaceType, type GraphQLSchema } from 'graphql';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CATALOGUE, type GatewayCode } from '../errors/catalogue.js';

// What a tool answers: the operation's data as structured content, or a failure a model can act on. A failure
// is never a protocol error and never looks like success: `isError` with `structuredContent.error` saying what
// happened and what to do next. The words are the gateway's own, from one owner each: an expected failure
// returned as data (OutcomeUnknown, UpstreamUnavailable, IdempotencyConflict, ValidationError, …) is explained by
// its type's description in the schema; a refused request or a failed operation by the failure catalogue's
// message, which names the fix, and its retry rule.

interface GraphQLErrorJson {
  message: string;
  path?: readonly (string | number)[];
  extensions?: Record<string, unknown>;
}

export interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLErrorJson[];
}

/** The failures returned as data: the object types implementing the schema's `Error` interface, and what each tells a client to do. */
export function errorTypes(schema: GraphQLSchema): ReadonlyMap<string, string> {
  const error = schema.getType('Error');
  const types = new Map<string, string>();
  if (!isInterfaceType(error)) return types;
  for (const type of schema.getPossibleTypes(error)) types.set(type.name, type.description ?? '');
  return types;
}

function answered(structured: Record<string, unknown>, isError: boolean): CallToolResult {
  // The text is for clients that read no structured content (the spec asks for both).
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, ...(isError ? { isError } : {}) };
}

/** A failure of the gateway's own making, before any operation ran (an unknown tool, missing scopes). */
export const failedResult = (error: Record<string, unknown>): CallToolResult => answered({ error }, true);

/** A GraphQL error as a model reads it: the catalogue's code, message and retry rule. */
function describeError({ message, path, extensions = {} }: GraphQLErrorJson): Record<string, unknown> {
  // `http` is how a refusal told yoga its status: not the client's to read (yoga strips it from bodies too).
  const { code, ...rest } = extensions as { code?: string; [field: string]: unknown };
  delete rest.http;
  const entry = code && code in CATALOGUE ? CATALOGUE[code as GatewayCode] : undefined;
  return {
    ...(code ? { code } : {}),
    message,
    ...(path ? { path } : {}),
    ...(entry ? { retryable: entry.retryable } : {}),
    ...rest,
  };
}

/** The first root field whose answer is one of the schema's failures returned as data, with what to do next. */
function failureInData(data: Record<string, unknown>, failures: ReadonlyMap<string, string>): Record<string, unknown> | null {
  for (const value of Object.values(data)) {
    const typename = (value as { __typename?: unknown } | null)?.__typename;
    if (typeof typename === 'string' && failures.has(typename)) {
      const { __typename, ...fields } = value as Record<string, unknown>;
      return { type: __typename, ...fields, next: failures.get(typename) };
    }
  }
  return null;
}

/** The tool result of the answer `body` (any HTTP status: a refused request is a failure like any other). */
export function toolResult(body: GraphQLAnswer, failures: ReadonlyMap<string, string>): CallToolResult {
  const errors = body.errors?.map(describeError);
  const data = body.data ?? null;
  // Nothing answered (a refused request, or every root field null beside its error) is a failure; some data
  // beside errors is a partial answer, its errors listed with it.
  if (!data || (errors?.length && Object.values(data).every((value) => value === null))) {
    const error = errors?.[0] ?? { message: 'The gateway answered without data or errors.' };
    return answered({ error, ...(errors && errors.length > 1 ? { errors } : {}), ...(data ? { data } : {}) }, true);
  }
  const failure = failureInData(data, failures);
  if (failure) return answered({ error: failure, data }, true);
  return answered({ ...data, ...(errors ? { errors } : {}) }, false);
}
