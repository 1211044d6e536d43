import { SCOPES, type Caller } from '../security/scopes.js';
import { builder } from './builder.js';

// Who the gateway takes the caller to be: an API key or a JWT access token, its subject, client, scopes and
// expiry, so a client can check what its token was mapped to without decoding it. Asked as `caller`, or as
// `viewer { caller }` beside the upstream account the gateway acts for (account.ts).

const CallerKind = builder.enumType('CallerKind', {
  values: { KEY: { value: 'key' }, TOKEN: { value: 'token' }, DEVELOPMENT: { value: 'development' } } as const,
});

export const CallerRef = builder.objectRef<Caller>('Caller').implement({
  description: 'The caller of this operation, as the gateway authenticated it.',
  fields: (t) => ({
    kind: t.field({ type: CallerKind, resolve: (caller) => caller.kind ?? 'development' }),
    subject: t.string({
      description: "The API key's name, or the token's subject (`sub`, else its client).",
      resolve: (caller) => caller.subject ?? caller.name,
    }),
    client: t.string({ nullable: true, description: "A token's `client_id`/`azp`.", resolve: (caller) => caller.client ?? null }),
    scopes: t.stringList({ description: 'The gateway scopes granted.', resolve: (caller) => SCOPES.filter((scope) => caller.scopes.has(scope)) }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a token stops being accepted (its `exp`); null for keys, which do not expire.',
      resolve: (caller) => (caller.expiresAt ? new Date(caller.expiresAt) : null),
    }),
    trustedOnly: t.boolean({ description: 'Held to the trusted documents.', resolve: (caller) => caller.trustedOnly ?? false }),
  }),
});

builder.queryField('caller', (t) =>
  t.field({
    type: CallerRef,
    // Any one scope: whoever may do anything may ask who it is.
    authScopes: Object.fromEntries(SCOPES.map((scope) => [scope, true])),
    description: 'Who is calling: the API key or access token this operation was authenticated with.',
    resolve: (_root, _args, ctx) => ctx.caller,
  }),
);
