import type { Account } from '../upstream/types.js';
import { builder } from './builder.js';
import { CallerRef } from './caller.js';

const AccountRef = builder.objectRef<Account>('Account').implement({
  description: 'The upstream account behind the gateway (the reward API ping).',
  fields: (t) => ({
    username: t.exposeString('username'),
    displayName: t.exposeString('displayName'),
    // The viewer is two parties: the upstream account every call is made as, and the caller of the gateway.
    caller: t.field({
      type: CallerRef,
      description: 'Who is calling the gateway: the API key or access token this operation runs as (as `Query.caller`).',
      resolve: (_account, _args, ctx) => ctx.caller,
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: AccountRef,
    nullable: true,
    authScopes: { 'rewards:read': true },
    description: 'Confirms the upstream credentials and names the account; `caller` says who is calling the gateway.',
    resolve: (_root, _args, ctx) => ctx.loaders.account(),
  }),
);
