import type { Account } from '../upstream/types.js';
import { builder } from './builder.js';

const AccountRef = builder.objectRef<Account>('Account').implement({
  description: 'The upstream account behind the gateway (the reward API ping).',
  fields: (t) => ({
    username: t.exposeString('username'),
    displayName: t.exposeString('displayName'),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: AccountRef,
    nullable: true,
    authScopes: { 'rewards:read': true },
    description: 'Confirms the upstream credentials and names the account.',
    resolve: (_root, _args, ctx) => ctx.loaders.account(),
  }),
);
