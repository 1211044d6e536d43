import type { SandboxClient } from '../clients.js';
import { sleep } from '../context.js';
import type { SandboxProcess } from '../processes.js';
import type { Settings } from '../settings.js';
import { compiledEntry, productionNodeFlags, startGatewayTarget, type Target, type TargetName } from '../targets.js';

// What the reload dashboard (dashboard.ts) and the live one (live-dashboard.ts) share, so that they measure the
// same thing two ways: the same 10 orders of 20 rewards over three brands, the same redemption every 500 ms,
// the same upstream count, the gateway started the same way.

export const ORDERS = 10;
export const REWARDS = 20;
const BRANDS = ['sbxcoffeeus', 'sbxbooksus', 'sbxgroceryus'];
export const REDEEM_EVERY_MS = 500;
/** The gateway's CACHE_TTL_MS in both scenarios (its default): the freshness guarantee of an unwatched view. */
export const CACHE_TTL_MS = 5_000;

export interface Order {
  ref: string;
  gifts: string[];
}

/** The dashboard's orders, named half by id and half by uuid as a client would. */
export async function createOrders(upstream: SandboxClient, prefix: string): Promise<Order[]> {
  const orders: Order[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const order = await upstream.createEmailOrder(`${prefix}-${i}`, { recipients: REWARDS, brandCode: BRANDS[i % BRANDS.length]! });
    orders.push({ ref: i % 2 === 0 ? order.id : order.uuid, gifts: order.gifts });
  }
  return orders;
}

/** Redeems one random open reward of `orders` every REDEEM_EVERY_MS until `ends`; returns when each was redeemed. */
export async function redeemUntil(
  upstream: SandboxClient,
  orders: Order[],
  ends: number,
  onRedeemed?: (uuid: string, at: number) => void,
): Promise<Map<string, number>> {
  const open = orders.flatMap((o) => o.gifts);
  const redeemedAt = new Map<string, number>();
  while (Date.now() < ends && open.length > 0) {
    const uuid = open.splice(Math.floor(Math.random() * open.length), 1)[0]!;
    await upstream.redeem(uuid);
    const at = Date.now();
    redeemedAt.set(uuid, at);
    onRedeemed?.(uuid, at);
    await sleep(REDEEM_EVERY_MS);
  }
  return redeemedAt;
}

/** Upstream requests per second between two sandbox stats. */
export function upstreamPerSecond(
  before: { requests: Record<string, number> },
  after: { requests: Record<string, number> },
  seconds: number,
): number {
  const sent = Object.entries(after.requests).reduce((sum, [route, n]) => sum + n - (before.requests[route] ?? 0), 0);
  return Math.round((sent / seconds) * 10) / 10;
}

/** The gateway target BENCH_TARGETS asks for (compiled, as production starts it, or through tsx), or none. */
export function gatewayStarter(
  settings: Settings,
  sandbox: SandboxProcess,
  env: Record<string, string>,
  log: (message: string) => void,
): [TargetName, () => Promise<Target>] | null {
  const wanted = new Set(settings.BENCH_TARGETS);
  const entry = wanted.has('gateway-compiled') ? compiledEntry(settings.BENCH_COMPILED_ENTRY, log) : null;
  if (entry) return ['gateway-compiled', () => startGatewayTarget('gateway-compiled', entry, sandbox, productionNodeFlags(), env)];
  if (wanted.has('gateway-tsx')) return ['gateway-tsx', () => startGatewayTarget('gateway-tsx', 'src/main.ts', sandbox, [], env)];
  return null;
}
