// The control API under /__sandbox: what only a recipient or the world can do to the reward API (claim,
// bounce, expire, money arriving, time passing, the network failing), plus what the sandbox received.
// Not part of the reward API: no token, not counted in stats, never faulted.
import { z } from 'zod';
import { CURRENCIES, type Currency } from './catalog.js';
import type { Handler, Route, SandboxContext } from './context.js';
import { invalidParameter } from './errors.js';
import { capacitySchema } from './capacity.js';
import { faultRuleSchema } from './faults.js';
import { clearPending, fundsView, topUp } from './funds.js';
import { bounce, expire, findGift, giftView, redeem } from './gifts.js';
import { formatPacific } from '../shared/pacific-time.js';
import { tick } from './processing.js';
import { createState } from './state.js';
import { parseBody } from './validate.js';

function resetSandbox(ctx: SandboxContext): void {
  ctx.state = createState(ctx.settings.balances);
  ctx.stats.reset();
  ctx.faults.clear();
  ctx.capacity.set(null);
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
  amount_in_cents: z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER / 1024),
  pending: z.boolean().optional(),
});
const addFunds: Handler = ({ ctx, body }) => {
  const req = parseBody(fundsSchema, body);
  const released = topUp(ctx.state, req.currency, req.amount_in_cents, req.pending ?? false);
  return { body: { fundsbycurrency: fundsView(ctx.state), released: released.map((o) => o.id) } };
};

const clockSchema = z.object({
  advance_ms: z
    .number()
    .int()
    .min(0)
    .max(10 * 366 * 24 * 3600 * 1000),
});
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
    ctx.capacity.set(null);
    return { body: { ok: true, rules: 0 } };
  };
  const setCapacity: Handler = ({ ctx, body }) => {
    ctx.capacity.set(parseBody(capacitySchema, body));
    return { body: { ok: true, capacity: ctx.capacity.current } };
  };
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/reset',
      handler: reset,
      doc: { does: 'Forget every order, gift, top-up, fault and counter; balances back to the start.' },
    },
    {
      method: 'GET',
      path: '/stats',
      handler: stats,
      doc: { does: 'Requests the reward API received, per route (what "exactly once" is counted against).' },
    },
    {
      method: 'POST',
      path: '/gifts/:uuid/redeem',
      handler: redeemGift,
      doc: {
        does: 'The recipient claims the gift (brand_code picks one brand of a multi-brand gift; optional).',
        example: { brand_code: 'sbxcoffeeus' },
      },
    },
    {
      method: 'POST',
      path: '/gifts/:uuid/bounce',
      handler: bounceGift,
      doc: {
        does: "The recipient's mailbox bounces the email: permanent (UNDELIVERABLE) or not (TEMPORARILY_UNDELIVERABLE).",
        example: { permanent: false },
      },
    },
    { method: 'POST', path: '/gifts/:uuid/expire', handler: expireGift, doc: { does: 'The claim period of the gift ends now (EXPIRED).' } },
    {
      method: 'POST',
      path: '/funds',
      handler: addFunds,
      doc: {
        does: 'Money arrives outside the API (a bank transfer); pending: true holds it as pending until the clock moves. Orders waiting for funds are released.',
        example: { currency: 'USD', amount_in_cents: 500000, pending: false },
      },
    },
    {
      method: 'POST',
      path: '/clock',
      handler: advanceClock,
      doc: { does: "Move the sandbox's clock forward (expiry dates pass, pending money clears).", example: { advance_ms: 86400000 } },
    },
    {
      method: 'POST',
      path: '/faults',
      handler: addFault,
      doc: {
        does: `Make the reward API fail: status (429, 500, 502, 503), reset (drop the connection) or latency_ms, for a share (rate) of requests to one route (${apiRouteKeys[0]}, ...) or all, count times; after: true fails once the work is done.`,
        example: { route: 'POST /campaign', status: 503, rate: 1, count: 2 },
      },
    },
    { method: 'DELETE', path: '/faults', handler: clearFaults, doc: { does: 'Remove every fault rule and the capacity fault.' } },
    {
      method: 'POST',
      path: '/capacity',
      handler: setCapacity,
      doc: {
        does: 'Limit the reward API like production does, without telling the numbers: above per_second requests a second (burst at once, default one second) every request is answered 429. DELETE /faults lifts it.',
        example: { per_second: 10, burst: 10 },
      },
    },
  ];
  const index: Handler = ({ origin }) => ({
    body: {
      about:
        "Control API of the reward API sandbox: play the recipient and the world. No token needed. Gift uuids: GET /papi/v1/gifts (with the token) or the gateway's gifts query.",
      routes: routes.map((route) => ({
        method: route.method,
        path: `/__sandbox${route.path}`,
        does: route.doc?.does,
        example: curlExample(origin, route),
      })),
    },
  });
  return [{ method: 'GET', path: '/', handler: index }, ...routes];
}

/** A command to copy: the route's own sample body, a placeholder for its uuid. */
function curlExample(origin: string, route: Route): string {
  const url = `${origin}/__sandbox${route.path.replace(':uuid', '<gift-uuid>')}`;
  if (route.method === 'GET') return `curl -s ${url}`;
  const body = route.doc?.example;
  return body === undefined
    ? `curl -s -X ${route.method} ${url}`
    : `curl -s -X ${route.method} ${url} -H 'content-type: application/json' -d '${JSON.stringify(body)}'`;
}
