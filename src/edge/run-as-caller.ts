// The one way an operation that comes without an HTTP request (a WebSocket subscribe, a webhook endpoint's
// subscription) runs as its caller: the access pipeline's params stage (rate limit, trusted documents), then
// yoga's envelop (getEnveloped) parses, validates, builds the context and executes or subscribes, as yoga does
// for HTTP (processRequest) and its graphql-ws recipe does for sockets. Such an operation therefore meets the
// very plugins an HTTP one does; its transport only admits the caller and carries the results.

import type { ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import type { GraphQLParams, OnParamsEventPayload, Plugin, YogaServerInstance } from 'graphql-yoga';
import type { CallerContext } from '../security/caller-context.js';

/** The pipeline's `onParams` hooks, which yoga runs for HTTP only (security.ts gathers them). */
export type ParamsHooks = readonly NonNullable<Plugin['onParams']>[];

/** Execution args that carry the envelop they were prepared by: graphql-ws hands back only the args. */
export type PreparedArgs = ExecutionArgs & {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
};

/** Why an operation did not get as far as running, and at which stage: each transport words it its own way. */
export type Refusal =
  /** What a stage threw: a rule's GraphQLError (rate limit, trusted documents, token limit, syntax) or a fault. */
  | { stage: 'params' | 'parse' | 'validate'; thrown: unknown }
  /** The document breaks validation rules. */
  | { stage: 'invalid'; errors: readonly GraphQLError[] };

export type Prepared = { ok: true; args: PreparedArgs } | { ok: false; refusal: Refusal };

const refused = (refusal: Refusal): Prepared => ({ ok: false, refusal });

/**
 * `params` through the params hooks and the envelop of `yoga`, as the caller `initial` names, up to the args to
 * execute or subscribe with (graphql-ws picks which). A stage that throws fails this operation only.
 */
export async function prepareAsCaller(
  // Any yoga instance: its context types appear contravariantly (plugin hooks), so neither `object` nor a
  // generic accepts the gateway's GatewayContext and a test's bare one alike.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  yoga: YogaServerInstance<any, any>,
  paramsHooks: ParamsHooks,
  payload: GraphQLParams,
  initial: CallerContext,
): Promise<Prepared> {
  let params = payload;
  const setParams = (changed: GraphQLParams) => (params = changed);
  try {
    for (const onParams of paramsHooks) {
      // There is no fetch Request: the hooks read the caller from the context (security/caller-context.ts).
      const pending = onParams({ params, setParams, context: initial, fetchAPI: yoga.fetchAPI } as unknown as OnParamsEventPayload);
      // No extra turn of the event loop for a hook that answers at once (the rate limit and trusted documents do).
      if (pending) await pending;
    }
  } catch (thrown) {
    return refused({ stage: 'params', thrown });
  }
  // `params` as yoga's HTTP context has them: a plugin may read the operation's extensions (use-live-queries.ts).
  // Added to the very object the params stage saw, not a copy: plugins keep per-operation state by it (the
  // automatic persisted query waiting to be registered once its operation has run).
  const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped(Object.assign(initial, { params }));
  let document;
  try {
    document = parse(params.query ?? '');
  } catch (thrown) {
    return refused({ stage: 'parse', thrown });
  }
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema, document);
  } catch (thrown) {
    return refused({ stage: 'validate', thrown });
  }
  if (errors.length > 0) return refused({ stage: 'invalid', errors });
  const contextValue = await contextFactory();
  return {
    ok: true,
    args: { schema, document, operationName: params.operationName, variableValues: params.variables, contextValue, execute, subscribe },
  };
}

/** Starts the subscription `args` were prepared for. */
export async function subscribeAsCaller(args: PreparedArgs): Promise<ExecutionResult | AsyncIterable<ExecutionResult>> {
  // Scope auth's cache of the check is dropped once it started (use-scope-cache-release.ts).
  return (await args.subscribe(args)) as ExecutionResult | AsyncIterable<ExecutionResult>;
}
