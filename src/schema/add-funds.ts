import { IdempotencyConflict, InputValidationError, OutcomeUnknown, UpstreamRejected, UpstreamUnavailable } from '../orders/errors.js';
import { addFundsInput } from '../orders/order-rules.js';
import { rejectionsAsData, unavailableAsData } from '../orders/upstream-rejections.js';
import type { Funds } from '../upstream/types.js';
import { builder } from './builder.js';
import { MONEY } from './money.js';
import { FundsRef } from './funds.js';

const AddFundsPayload = builder.objectRef<{ funds: Funds }>('AddFundsPayload').implement({
  fields: (t) => ({
    funds: t.field({
      type: FundsRef,
      description: 'The balances as they stand now (read again after the top-up).',
      // A top-up re-sent with the same id is answered with the original response, balances as they stood
      // then; the upstream does not say it is a replay. So the balances are read fresh (one GET, shared with
      // the rest of the operation); only if that read fails does the top-up's own answer stand in.
      resolve: (p, _args, ctx) => ctx.loaders.funds().catch(() => p.funds),
    }),
  }),
});

const AddFundsInput = builder.inputType('AddFundsInput', {
  fields: (t) => ({
    id: t.id({ required: true, description: 'Idempotency key of this top-up.' }),
    currency: t.string({ required: true, description: 'USD, CAD or AUD.' }),
    amountInCents: t.field({ type: MONEY, required: true, description: 'Between 25,000 and 1,000,000 cents.' }),
  }),
});

builder.mutationField('addFunds', (t) =>
  t.field({
    type: AddFundsPayload,
    authScopes: { 'funds:write': true },
    description:
      'Tops up the balance by card. Orders waiting for funds are released automatically, oldest first. ' +
      'A declined card is UpstreamRejected with code ERROR_FUNDS_CARD_ERROR.',
    errors: { types: [InputValidationError, UpstreamRejected, IdempotencyConflict, OutcomeUnknown, UpstreamUnavailable] },
    args: { input: t.arg({ type: AddFundsInput, required: true, validate: { schema: addFundsInput } }) },
    resolve: unavailableAsData(async (_root, { input }, ctx) => {
      const funds = await rejectionsAsData(
        () => ctx.client.addFunds({ id: input.id, currency: input.currency.toUpperCase(), amountInCents: input.amountInCents }),
        { id: input.id, unknown: { what: 'the top-up may or may not have been made', retrySameIdIsSafe: true } },
      );
      ctx.loaders.forgetAll();
      return { funds };
    }),
  }),
);
