// `query … @live` (the directive of @n1ru4l/graphql-live-query): executed as a stream of results, over SSE and
// graphql-ws (over a plain POST or GET, answered once, as without @live), after the whole access pipeline has admitted it like any other query (scopes, cost, depth, trusted
// documents). The first result comes from the operation's first resolution; then live/live-queries.ts sends
// what changes. A client asks for JSON patches (RFC 6902, with a revision; applyLiveQueryJSONPatch of
// @n1ru4l/graphql-live-query-patch-json-patch rebuilds the results) with the request extension
// `"livePatch": "json-patch"`; without it, every change is sent as a whole result. With patches, the request
// extension `"liveResume": true` asks for each payload's hash, and a reconnect sends
// `"liveResume": { "revision": n, "hash": "…" }` from the last payload it applied (live-queries.ts says what follows).
//
// Each resolution runs the execution the plugins before this one chose (compiled or interpreted) with the
// context's liveRound(): its own loaders and a record of what it read. Identical live queries (document,
// variables, the same caller and scopes) share one shared query per replica.

import { getLiveDirectiveArgumentValues, getLiveDirectiveNode } from '@n1ru4l/graphql-live-query';
import {
  getOperationAST,
  GraphQLError,
  print,
  visit,
  type ValidationRule,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../graph/context.js';
import { stableKey } from '../graph/loaders.js';
import { z } from 'zod';
import type { LiveMode, LiveQueries, LiveRound } from '../live/live-queries.js';
import { releaseScopeCache } from './use-scope-cache-release.js';

/** The request extension a client sends to receive patches. */
export const LIVE_PATCH_EXTENSION = 'livePatch';
/** The request extension a client sends to be able to resume patches after a reconnect, and to resume them. */
export const LIVE_RESUME_EXTENSION = 'liveResume';

const resumeBase = z.object({ revision: z.number().int().positive(), hash: z.string().min(1).max(64) });

const printed = new WeakMap<DocumentNode, string>();
const textOf = (document: DocumentNode): string => {
  let text = printed.get(document);
  if (text === undefined) printed.set(document, (text = print(document)));
  return text;
};

/**
 * A live operation cannot use @defer or @stream, in itself or in a fragment it spreads. Not
 * NoLiveMixedWithDeferStreamRule of @n1ru4l/graphql-live-query: it checks every fragment of the document as if
 * it were live, so `fragment F on Query { regions @stream } query { ...F }` was refused without any @live.
 */
const noIncrementalDeliveryInLive: ValidationRule = (context) => ({
  OperationDefinition(operation) {
    if (!getLiveDirectiveNode(operation)) return false;
    for (const node of [operation, ...context.getRecursivelyReferencedFragments(operation)]) {
      visit(node, {
        Directive(directive) {
          const name = directive.name.value;
          if (name === 'defer' || name === 'stream')
            context.reportError(new GraphQLError(`Cannot mix "@${name}" with "@live".`, { nodes: directive }));
        },
      });
    }
    return false;
  },
  FragmentDefinition: () => false,
});

function liveRequested(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  const directive = operation && getLiveDirectiveNode(operation);
  return Boolean(directive && getLiveDirectiveArgumentValues(directive, args.variableValues).isLive);
}

/**
 * Who may share a resolution: the same document and variables, read as the same caller with the same scopes.
 * The caller, not only its scopes: what a caller reads may be its own (a token subject's webhook endpoints).
 */
function sharingKey(args: ExecutionArgs, context: GatewayContext): string {
  const { name, kind, subject, issuer, scopes } = context.caller;
  return stableKey({
    document: textOf(args.document),
    operationName: args.operationName ?? null,
    variables: args.variableValues ?? {},
    caller: { name, kind: kind ?? null, subject: subject ?? null, issuer: issuer ?? null, scopes: [...scopes].sort() },
  });
}

/**
 * Whether the answer can be a stream: over HTTP, only when the client accepts SSE or multipart (yoga answers an
 * iterable to anything else with 406, and the live query would stay open with nobody to send to).
 */
const streams = (context: { request?: Request }): boolean =>
  !context.request || /text\/event-stream|multipart\/mixed/.test(context.request.headers.get('accept') ?? '');

/** What the request's extensions ask for; a malformed resume base counts as none (the whole result, revision 1). */
function modeOf(context: { params?: GraphQLParams }): LiveMode {
  const extensions = context.params?.extensions;
  const patches = extensions?.[LIVE_PATCH_EXTENSION] === 'json-patch';
  const resume = extensions?.[LIVE_RESUME_EXTENSION];
  const base = resumeBase.safeParse(resume);
  return { patches, resume: resume !== undefined && resume !== false, ...(base.success ? { base: base.data } : {}) };
}

export function useLiveQueries(liveQueries: LiveQueries): Plugin<GatewayContext> {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(noIncrementalDeliveryInLive);
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      // Answered once, as a plain query, where no stream can be sent.
      if (!liveRequested(args) || !streams(args.contextValue as { request?: Request })) return;
      setExecuteFn((run) => {
        const context = run.contextValue as GatewayContext & { params?: GraphQLParams };
        const resolve = async (fresh: boolean): Promise<LiveRound> => {
          const { reads, ...round } = context.liveRound(fresh);
          const roundContext = { ...context, ...round };
          let result: ExecutionResult;
          try {
            result = (await executeFn({ ...run, contextValue: roundContext })) as ExecutionResult;
          } finally {
            // A round runs below the plugins' hooks, so the release that follows an operation does not see it.
            releaseScopeCache(roundContext);
          }
          const extensions = round.freshness.stale ? { ...result.extensions, stale: true } : result.extensions;
          return {
            data: result.data ?? null,
            errors: result.errors,
            extensions,
            groups: reads.groups,
            orders: reads.orders,
            catalogue: reads.catalogue,
          };
        };
        return liveQueries.open(sharingKey(run, context), context.caller.name, resolve, modeOf(context)).then(
          (iterator) => iterator as AsyncIterableIterator<ExecutionResult>,
          // A refusal of the operation (the cap), answered as the operation's errors, not thrown as a fault.
          (error: unknown) => {
            if (error instanceof GraphQLError) return { errors: [error] };
            throw error;
          },
        );
      });
    },
  };
}
