import type { CurrencyBalance, Funds } from '../upstream/types.js';
import { builder } from './builder.js';
import { MONEY } from './money.js';

export const CurrencyBalanceRef = builder.objectRef<CurrencyBalance>('CurrencyBalance').implement({
  description: 'Balances of one currency, in cents.',
  fields: (t) => ({
    currency: t.exposeString('currency'),
    availableInCents: t.expose('availableInCents', {
      type: MONEY, description: 'Purchasing power now.' }),
    pendingInCents: t.expose('pendingInCents', {
      type: MONEY, description: 'Money sent but not yet cleared.' }),
    reservedInCents: t.expose('reservedInCents', {
      type: MONEY,
      description: 'Covers outstanding unclaimed rewards within their claim period.',
    }),
  }),
});

export const FundsRef = builder.objectRef<Funds>('Funds').implement({
  fields: (t) => ({
    balances: t.field({ type: [CurrencyBalanceRef], resolve: (funds) => funds.balances }),
    balance: t.field({
      type: CurrencyBalanceRef,
      nullable: true,
      description: 'The balance of one currency (e.g. USD), null when the account has none.',
      args: { currency: t.arg.string({ required: true }) },
      resolve: (funds, { currency }) => funds.balances.find((b) => b.currency === currency.toUpperCase()) ?? null,
    }),
  }),
});

builder.queryField('funds', (t) =>
  t.field({
    type: FundsRef,
    nullable: true,
    authScopes: { 'funds:read': true },
    resolve: (_root, _args, ctx) => ctx.loaders.funds(),
  }),
);

builder.subscriptionField('fundsChanged', (t) =>
  t.field({
    type: FundsRef,
    authScopes: { 'funds:read': true },
    description: 'The balances each time they change; with `currency` (e.g. USD), only when that one changes.',
    args: { currency: t.arg.string() },
    subscribe: (_root, { currency }, ctx) => ctx.live.fundsChanges(currency ? currency.toUpperCase() : null),
    resolve: (funds) => funds,
  }),
);
