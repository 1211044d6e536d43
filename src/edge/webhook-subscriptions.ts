import { GraphQLError, type ExecutionResult } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { GatewayContext } from '../graph/context.js';
import { prepareAsCaller, subscribeAsCaller, type ParamsHooks } from './run-as-caller.js';
import type { CallerContext } from '../security/caller-context.js';
import { isScope, type Caller } from '../security/scopes.js';
import { tokenCallerName } from '../security/token-callers.js';
import type { Opened, Refusal, SubscriptionSource } from '../webhooks/source.js';
import type { Registrant } from '../webhooks/store.js';

// Webhook endpoints' subscriptions run the way a WebSocket subscription does (run-as-caller.ts): the access
// pipeline's params stage (trusted documents), then parse, validate (depth, aliases, tokens), the context and
// subscribe (cost, scopes, the resolver's own checks) through the one yoga's envelop, as the caller who
// registered the endpoint. Their events are therefore the very events a WebSocket or SSE subscriber of the same
// document gets, from the same live logs, with the same cursors.

/** What a webhook's operation gives yoga in place of a request: only who it runs as. */
interface WebhookInitialContext extends CallerContext {
  transport: 'webhook';
}

/** What the configured API keys grant now, by name (GATEWAY_API_KEYS): a key's endpoints follow its changes. */
export type KeyScopes = ReadonlyMap<string, readonly string[]>;

/**
 * The registrant as the caller the pipeline knows (no expiry: an endpoint belongs to the token's subject). An API
 * key's endpoint runs with what the key grants now and had at registration (a scope removed since is gone, one
 * added is not taken); null when the key is no longer configured.
 */
function callerOf(registrant: Registrant, keys: KeyScopes): Caller | null {
  let scopes = registrant.scopes;
  if (registrant.kind === 'key') {
    const now = keys.get(registrant.name);
    if (!now) return null;
    scopes = scopes.filter((scope) => now.includes(scope));
  }
  // A token's endpoint counts under its caller's name of today: one registered before names held the issuer too
  // counts beside that subject's other requests all the same.
  const { issuer, subject } = registrant;
  return {
    name: registrant.kind === 'token' && issuer !== undefined && subject !== undefined ? tokenCallerName(issuer, subject) : registrant.name,
    scopes: new Set(scopes.filter(isScope)),
    ...(registrant.kind && { kind: registrant.kind }),
    ...(subject !== undefined && { subject }),
    ...(registrant.client !== undefined && { client: registrant.client }),
    ...(issuer !== undefined && { issuer }),
    ...(registrant.trustedOnly !== undefined && { trustedOnly: registrant.trustedOnly }),
  };
}

/** `fallback`: the code yoga gives such an error over HTTP (graphql-js's own errors carry none). */
function refused(errors: readonly unknown[], fallback: string | null = null): Opened {
  const refusals: Refusal[] = errors.map((error) =>
    error instanceof GraphQLError
      ? { message: error.message, code: typeof error.extensions?.code === 'string' ? error.extensions.code : fallback }
      : { message: 'The subscription could not be run.', code: null },
  );
  return { ok: false, refusals };
}

/**
 * `yoga` is asked for lazily: the gateway's yoga is built from a context factory that already needs the
 * webhooks (app.ts).
 */
export function webhookSubscriptions(
  yoga: () => YogaServerInstance<Record<string, unknown>, GatewayContext>,
  paramsHooks: ParamsHooks,
  keys: KeyScopes,
): SubscriptionSource {
  return {
    async open(registrant, query, variables) {
      const caller = callerOf(registrant, keys);
      if (!caller) {
        return {
          ok: false,
          refusals: [{ message: `The API key "${registrant.name}" that registered this endpoint is no longer configured.`, code: 'UNAUTHENTICATED' }],
        };
      }
      const initial: WebhookInitialContext = { transport: 'webhook', caller };
      const prepared = await prepareAsCaller(yoga(), paramsHooks, { query, variables: variables ?? undefined }, initial);
      if (!prepared.ok) {
        const { refusal } = prepared;
        if (refusal.stage === 'invalid') return refused(refusal.errors, 'GRAPHQL_VALIDATION_FAILED');
        return refused([refusal.thrown], refusal.stage === 'parse' ? 'GRAPHQL_PARSE_FAILED' : null);
      }
      const result = await subscribeAsCaller(prepared.args);
      if (!(Symbol.asyncIterator in result)) return refused(result.errors ?? [new GraphQLError('The subscription opened no stream.')]);
      const events = result[Symbol.asyncIterator]();
      return { ok: true, events: events as AsyncIterator<ExecutionResult<Record<string, unknown>>>, close: () => void events.return?.() };
    },
  };
}
