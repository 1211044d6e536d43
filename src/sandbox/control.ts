// The control API under /__sandbox: what only a recipient or the world can do to the reward API (claim,
// bounce, expire, money arriving, time passing, the network failing), plus what the sandbox received.
// Not part of the reward API: no token, not counted in stats, never faulted.
import { z } from 'zod';
import { CURRENCIES, type Currency } from './catalog.js';
import type { Handler, Route, SandboxContext } from './context.js';
import { invalidParameter } from './errors.js';
import { faultRuleSchema } from './faults.js';
import { clearPending, fundsView, topUp } from './funds.js';
import { bounce, expire, findGift, giftView, redeem } from './gifts.js';
import { formatPacific } from '../pacific-time.js';
import { tick } from './processing.js';
import { createState } from './state.js';
import { parseBody } from './validate.js';

function resetSandbox(ctx: SandboxContext): void {
  ctx.state = createState(ctx.settings.balances);
  ctx.stats.reset();
  ctx.faults.clear();
}

/** Control bodies are optional where every field is: an empty POST means `{}`. */
const bodyOrEmpty = (body: unknown) => body ?? {};

const reset: Handler = ({ ctx }) => {
  resetSandbox(ctx);
  return { body: { ok: true } };
};

const stats: Handler = ({ ctx }) => ({ body: ctx.stats.snapshot() });

const redeemSchema = z.object({ brand_code: z.string().min(1).optional() });
const redeemGift: Handler = ({ ctx, params, body }) => {
  const req = parseBody(redeemSchema, bodyOrEmpty(body));
  const gift = findGift(ctx.state, params.uuid!);
  redeem(ctx.state, gift, req.brand_code);
  return { body: { gift: giftView(gift) } };
};

const bounceSchema = z.object({ permanent: z.boolean() });
const bounceGift: Handler = ({ ctx, params, body }) => {
  const req = parseBody(bounceSchema, body);
  const gift = findGift(ctx.state, params.uuid!);
  bounce(gift, req.permanent);
  return { body: { gift: giftView(gift) } };
};

const expireGift: Handler = ({ ctx, params }) => {
  const gift = findGift(ctx.state, params.uuid!);
  expire(ctx.state, gift);
  return { body: { gift: giftView(gift) } };
};

const fundsSchema = z.object({
  currency: z.enum(CURRENCIES as [Currency, ...Currency[]]),
  amount_in_cents: z.number().int().positive().max(Number.MAX_SAFE_INTEGER / 1024),
  pending: z.boolean().optional(),
});
const addFunds: Handler = ({ ctx, body }) => {
  const req = parseBody(fundsSchema, body);
  const released = topUp(ctx.state, req.currency, req.amount_in_cents, req.pending ?? false);
  return { body: { fundsbycurrency: fundsView(ctx.state), released: released.map((o) => o.id) } };
};

const clockSchema = z.object({ advance_ms: z.number().int().min(0).max(10 * 366 * 24 * 3600 * 1000) });
const advanceClock: Handler = ({ ctx, body }) => {
  const req = parseBody(clockSchema, body);
  ctx.state.clock.advance(req.advance_ms);
  // Expiry at the new time is settled before this call answers; then time passing clears pending money.
  tick(ctx.state);
  const released = clearPending(ctx.state);
  const now = ctx.state.clock.now();
  return {
    body: { now: now.toISOString(), now_pacific: formatPacific(now), offset_ms: ctx.state.clock.offset, released: released.map((o) => o.id) },
  };
};

export function controlRoutes(apiRouteKeys: readonly string[]): Route[] {
  const addFault: Handler = ({ ctx, body }) => {
    const rule = parseBody(faultRuleSchema, body);
    if (rule.route !== undefined && !apiRouteKeys.includes(rule.route)) {
      throw invalidParameter(`route: unknown route "${rule.route}"; one of ${apiRouteKeys.join(', ')}`);
    }
    ctx.faults.add(rule);
    return { body: { ok: true, rules: ctx.faults.size } };
  };
  const clearFaults: Handler = ({ ctx }) => {
    ctx.faults.clear();
    return { body: { ok: true, rules: 0 } };
  };
  return [
    { method: 'POST', path: '/reset', handler: reset },
    { method: 'GET', path: '/stats', handler: stats },
    { method: 'POST', path: '/gifts/:uuid/redeem', handler: redeemGift },
    { method: 'POST', path: '/gifts/:uuid/bounce', handler: bounceGift },
    { method: 'POST', path: '/gifts/:uuid/expire', handler: expireGift },
    { method: 'POST', path: '/funds', handler: addFunds },
    { method: 'POST', path: '/clock', handler: advanceClock },
    { method: 'POST', path: '/faults', handler: addFault },
    { method: 'DELETE', path: '/faults', handler: clearFaults },
  ];
}
