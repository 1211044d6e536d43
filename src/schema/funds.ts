import type { FundsChange } from '../live/live.js';
import type { CurrencyBalance, Funds } from '../upstream/types.js';
import { builder } from './builder.js';
import { OBSERVED_AT } from './observed-at.js';
import { MONEY } from './money.js';
import { AFTER_DESCRIPTION, CHANGED_AT_DESCRIPTION, CURSOR_DESCRIPTION } from './cursor-docs.js';

export const CurrencyBalanceRef = builder.objectRef<CurrencyBalance>('CurrencyBalance').implement({
  description: 'Balances of one currency, in cents.',
  fields: (t) => ({
    currency: t.exposeString('currency'),
    availableInCents: t.expose('availableInCents', {
      type: MONEY,
      description: 'Purchasing power now.',
    }),
    pendingInCents: t.expose('pendingInCents', {
      type: MONEY,
      description: 'Money sent but not yet cleared.',
    }),
    reservedInCents: t.expose('reservedInCents', {
      type: MONEY,
      description: 'Covers outstanding unclaimed rewards within their claim period.',
    }),
  }),
});

export const FundsRef = builder.objectRef<Funds>('Funds').implement({
  fields: (t) => ({
    balances: t.field({ type: [CurrencyBalanceRef], resolve: (funds) => funds.balances }),
    observedAt: t.field(OBSERVED_AT),
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

const FundsChangeRef = builder.objectRef<FundsChange>('FundsChange').implement({
  description: 'The balances after a change, with the balances before it.',
  fields: (t) => ({
    funds: t.field({ type: FundsRef, resolve: (change) => change.funds }),
    previous: t.field({ type: FundsRef, resolve: (change) => change.previous }),
    cursor: t.exposeString('cursor', { description: CURSOR_DESCRIPTION }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: CHANGED_AT_DESCRIPTION }),
  }),
});

builder.subscriptionField('fundsChanged', (t) =>
  t.field({
    type: FundsChangeRef,
    authScopes: { 'funds:read': true },
    description: 'The balances each time they change; with `currency` (e.g. USD), only when that one changes.',
    args: { currency: t.arg.string(), after: t.arg.string({ description: AFTER_DESCRIPTION }) },
    subscribe: (_root, { currency, after }, ctx) =>
      ctx.live.fundsChanges({ currency: currency ? currency.toUpperCase() : null, after: after ?? null, watcher: ctx.caller.name }),
    resolve: (change) => change,
  }),
);
