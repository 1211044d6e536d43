// Money per currency: available (purchasing power), pending (sent, not cleared) and reserved (held for
// claimable rewards). Orders the available balance cannot cover wait in one queue per currency and are funded
// strictly oldest first: a later order never overtakes an older one still waiting, even when it would fit.
import { z } from 'zod';
import { CURRENCIES, type Currency } from './catalog.js';
import type { Handler } from './context.js';
import { SandboxError } from './errors.js';
import { createGifts } from './gift-factory.js';
import { info } from './info.js';
import { replayOrConflict, remember } from './idempotency.js';
import type { Gift, Order, SandboxState } from './state.js';
import { callerIdSchema, parseBody } from './validate.js';

export type Admission = 'FUNDED' | 'FUNDS_REQUIRED' | 'FUNDS_PENDING';

/** Card top-ups of exactly this amount are declined (402), so clients can exercise the card-error path. */
const DECLINED_AMOUNT_IN_CENTS = 40_200;
const MIN_TOP_UP_IN_CENTS = 25_000;
const MAX_TOP_UP_IN_CENTS = 1_000_000;

function waiting(state: SandboxState, currency: Currency): Order[] {
  return [...state.ordersByUuid.values()].filter((o) => !o.funded && o.currency === currency).sort((a, b) => a.seq - b.seq);
}

/** Decides whether a new order is funded now or joins its currency's queue. */
export function admit(state: SandboxState, order: Order): Admission {
  const balance = state.balances[order.currency];
  const queue = waiting(state, order.currency);
  const total = order.fees.total_in_cents;
  if (queue.length === 0 && balance.available >= total) {
    fund(state, order);
    return 'FUNDED';
  }
  const needed = queue.reduce((sum, o) => sum + o.fees.total_in_cents, 0) + total;
  return balance.available + balance.pending >= needed ? 'FUNDS_PENDING' : 'FUNDS_REQUIRED';
}

/**
 * Embedded rewards are claimed the moment they exist, so they cannot wait in the queue: they are funded from
 * available at once (not overtaking anyone, since they never queue) or refused.
 */
export function fundImmediately(state: SandboxState, order: Order): void {
  const balance = state.balances[order.currency];
  if (balance.available < order.fees.total_in_cents) {
    throw new SandboxError(
      422,
      'ERROR_FUNDS_INSUFFICIENT',
      'Insufficient funds',
      `An embedded reward needs ${order.fees.total_in_cents} ${order.currency} cents available; ${balance.available} are.`,
    );
  }
  fund(state, order);
}

function fund(state: SandboxState, order: Order): void {
  const balance = state.balances[order.currency];
  balance.available -= order.fees.total_in_cents;
  order.funded = true;
  order.status = 'API_CREATING';
  createGifts(state, order);
  // A reward claimed at creation (embedded) is spent at once; every other reward is held until it ends.
  for (const gift of order.gifts) if (gift.status === 'SENT_AND_REDEEMABLE') balance.reserved += gift.costInCents;
  state.unprocessed.push(order);
}

/** Funds waiting orders of the currency, oldest first, stopping at the first one available cannot cover. */
function releaseWaiting(state: SandboxState, currency: Currency): Order[] {
  const released: Order[] = [];
  for (const order of waiting(state, currency)) {
    if (state.balances[currency].available < order.fees.total_in_cents) break;
    fund(state, order);
    released.push(order);
  }
  return released;
}

export function topUp(state: SandboxState, currency: Currency, amount: number, pending: boolean): Order[] {
  const balance = state.balances[currency];
  if (pending) {
    balance.pending += amount;
    return [];
  }
  balance.available += amount;
  return releaseWaiting(state, currency);
}

/** Pending money clears when the sandbox clock moves (standing in for the days a transfer takes). */
export function clearPending(state: SandboxState): Order[] {
  const released: Order[] = [];
  for (const currency of CURRENCIES) {
    const balance = state.balances[currency];
    balance.available += balance.pending;
    balance.pending = 0;
    released.push(...releaseWaiting(state, currency));
  }
  return released;
}

/** A reward that ends unclaimed (cancelled, expired) gives its share back; that may fund waiting orders. */
export function refund(state: SandboxState, gift: Gift): void {
  const balance = state.balances[gift.order.currency];
  balance.reserved -= gift.costInCents;
  balance.available += gift.costInCents;
  releaseWaiting(state, gift.order.currency);
}

/** A claimed reward's money is spent: it leaves reserved for good. */
export function spend(state: SandboxState, gift: Gift): void {
  state.balances[gift.order.currency].reserved -= gift.costInCents;
}

export function fundsView(state: SandboxState): Record<string, unknown> {
  const byCurrency: Record<string, unknown> = {};
  for (const c of CURRENCIES) {
    const b = state.balances[c];
    byCurrency[c] = { available_in_cents: b.available, pending_in_cents: b.pending, reserved_in_cents: b.reserved };
  }
  return byCurrency;
}

export const getFunds: Handler = ({ ctx }) => ({
  body: { info: info('INFO_FUNDS', 'Funds', 'Balances by currency.'), status: 200, fundsbycurrency: fundsView(ctx.state) },
});

const topUpSchema = z.object({
  id: callerIdSchema,
  currencyisocode: z.enum(CURRENCIES as [Currency, ...Currency[]]),
  fund_amount_in_cents: z.number().int(),
});

export const addFunds: Handler = ({ ctx, body }) => {
  const req = parseBody(topUpSchema, body);
  const replay = replayOrConflict(ctx.state, 'POST /funds', req.id, body);
  if (replay) return replay;
  const amount = req.fund_amount_in_cents;
  if (amount < MIN_TOP_UP_IN_CENTS || amount > MAX_TOP_UP_IN_CENTS) {
    throw new SandboxError(
      400,
      'ERROR_FUNDS_INVALID_FUND_AMOUNT',
      'Invalid fund amount',
      `fund_amount_in_cents must be between ${MIN_TOP_UP_IN_CENTS} and ${MAX_TOP_UP_IN_CENTS}.`,
    );
  }
  if (amount === DECLINED_AMOUNT_IN_CENTS) {
    throw new SandboxError(402, 'ERROR_FUNDS_CARD_ERROR', 'Card error', 'The card was declined.');
  }
  topUp(ctx.state, req.currencyisocode, amount, false);
  ctx.stats.countCreate(req.id);
  return remember(ctx.state, 'POST /funds', req.id, body, {
    info: info('INFO_FUNDS_ADDED', 'Funds added', `${amount} ${req.currencyisocode} cents were added.`),
    status: 200,
    fundsbycurrency: fundsView(ctx.state),
  });
};
