import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ZodPlugin from '@pothos/plugin-zod';
import type { GatewayContext } from '../graph/context.js';
import { gatewayError } from '../errors/gateway-error.js';
import { InputValidationError } from '../orders/errors.js';
import { describeMissing, missingScopes, SCOPES, type Scope } from '../security/scopes.js';

// Set-up only: type files add the types and their root fields.
// Convention: root query fields that reach the upstream are nullable, so one failing upstream call nulls
// only its own field and its siblings keep their data.

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  AuthScopes: Record<Scope, boolean>;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: string; Output: string };
    /** Money: whole cents, safe up to 2^53 − 1 (src/schema/money.ts). */
    SafeInt: { Input: number; Output: number };
    ID: { Input: string; Output: string };
    /** A webhook endpoint's subscription variables (src/schema/webhook-endpoint.ts). */
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
  };
}>({
  // Scope auth first: a caller without the scope hears FORBIDDEN before its input is validated or anything
  // runs. Errors before zod: validation failures become the ValidationError member of a mutation's union.
  plugins: [ScopeAuthPlugin, ErrorsPlugin, ZodPlugin, RelayPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => Object.fromEntries(SCOPES.map((scope) => [scope, ctx.caller.scopes.has(scope)])) as Record<Scope, boolean>,
    unauthorizedError: (_parent, ctx, info, result) =>
      gatewayError('FORBIDDEN', {
        apiKey: ctx.caller.name,
        byToken: ctx.caller.kind === 'token',
        field: `${info.parentType.name}.${info.fieldName}`,
        missing: describeMissing(result.failure),
        missingScopes: missingScopes(result.failure),
      }),
  },
  defaultFieldNullability: false,
  relay: {
    // `id` is the caller's own idempotency key on campaigns (the upstream's name), so the Relay global id
    // lives under another name rather than shadowing it.
    idFieldName: 'nodeId',
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesQueryOptions: false,
    nodeQueryOptions: { authScopes: { 'rewards:read': true } },
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
  },
  errors: {
    defaultTypes: [],
    // Every mutation with expected failures answers a union `<Mutation>Result` of its payload (no wrapper
    // object) and its error types, e.g. `CancelGiftResult = GiftPayload | NotFound | ...`.
    directResult: true,
    defaultUnionOptions: { name: ({ fieldName }) => `${fieldName.charAt(0).toUpperCase()}${fieldName.slice(1)}Result` },
  },
  zod: {
    validationError: (zodError) => InputValidationError.fromZod(zodError),
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
