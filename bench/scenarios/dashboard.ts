import type { SandboxClient } from '../clients.js';
import { percentile, sleep } from '../context.js';
import { AUTH_HEADERS, startPeer, TARGET_LABELS, type Target, type TargetName } from '../targets.js';
import type { CompareContext } from './compare.js';
import { CACHE_TTL_MS, createOrders, gatewayStarter, ORDERS, redeemUntil, REWARDS, upstreamPerSecond } from './dashboard-workload.js';
import { NESTED } from './nested-read.js';

// Dashboard: 1, 10 and 50 viewers (BENCH_DASHBOARD_VIEWERS) each reload a 10-order view (orders → rewards →
// brands, the nested read's query) every second for BENCH_DASHBOARD_S seconds, against the gateway with its
// read cache (defaults: CACHE_TTL_MS 5 s; the compiled production start) and against the peers Apollo and
// plain yoga, each on orders of its own. Meanwhile a recipient redeems one of the rewards every 500 ms (the
// sandbox's truth moving): an answer that still shows a reward open after its redemption is that much behind
// the truth, and the oldest such age is reported with the guarantee it must stay under (CACHE_TTL_MS for
// rewards no subscription watches; the peers cache nothing).
// Reported: upstream requests per second, latency p50 and p99, and the oldest answer's age.

const RELOAD_MS = 1_000;

export interface DashboardRow {
  target: TargetName;
  label: string;
  viewers: number;
  answers: number;
  errors: number;
  upstreamPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** How far behind the sandbox's truth the most outdated answer was (0: never behind). */
  oldestAgeMs: number;
}

export interface DashboardResult {
  seconds: number;
  guaranteeMs: number;
  rows: DashboardRow[];
}

async function view(url: string, refs: string[]): Promise<{ ok: boolean; statuses: Map<string, string> }> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...AUTH_HEADERS },
    body: JSON.stringify({ query: NESTED, variables: { refs } }),
  });
  const json = (await res.json()) as any;
  const statuses = new Map<string, string>();
  for (const campaign of json.data?.campaigns ?? []) for (const edge of campaign?.gifts?.edges ?? []) statuses.set(edge.node.uuid, edge.node.status);
  return { ok: res.status === 200 && !json.errors && statuses.size === ORDERS * REWARDS, statuses };
}

async function run(target: Target, viewers: number, seconds: number, upstream: SandboxClient): Promise<DashboardRow> {
  const orders = await createOrders(upstream, `bench-dashboard-${target.name}-${viewers}-${Date.now()}`);
  const refs = orders.map((o) => o.ref);
  // Warm: brands in every target's catalogue, the view once.
  await view(target.url, refs);
  const redeemedAt = new Map<string, number>();
  const latencies: number[] = [];
  let errors = 0;
  let oldestAgeMs = 0;
  const before = await upstream.stats();
  const started = Date.now();
  const ends = started + seconds * 1_000;

  const redeemer = redeemUntil(upstream, orders, ends, (uuid, at) => redeemedAt.set(uuid, at));
  const viewer = async () => {
    await sleep(Math.random() * RELOAD_MS);
    while (Date.now() < ends) {
      const sentAt = Date.now();
      try {
        const answer = await view(target.url, refs);
        latencies.push(Date.now() - sentAt);
        if (!answer.ok) errors += 1;
        for (const [uuid, status] of answer.statuses) {
          const at = redeemedAt.get(uuid);
          if (at !== undefined && at < sentAt && status === 'SENT_AND_REDEEMABLE') oldestAgeMs = Math.max(oldestAgeMs, sentAt - at);
        }
      } catch {
        errors += 1;
      }
      await sleep(Math.max(0, sentAt + RELOAD_MS - Date.now()));
    }
  };
  await Promise.all([redeemer, ...Array.from({ length: viewers }, viewer)]);
  const elapsed = (Date.now() - started) / 1_000;
  const after = await upstream.stats();
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    target: target.name,
    label: TARGET_LABELS[target.name],
    viewers,
    answers: latencies.length,
    errors,
    upstreamPerSecond: upstreamPerSecond(before, after, elapsed),
    p50Ms: Math.round(percentile(sorted, 50) * 10) / 10,
    p99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
    oldestAgeMs,
  };
}

export async function dashboard(ctx: CompareContext): Promise<DashboardResult> {
  const { settings, sandbox, upstream, log } = ctx;
  const seconds = settings.BENCH_DASHBOARD_S;
  const wanted = new Set(settings.BENCH_TARGETS);
  // The gateway as production starts it (compiled), through tsx only when asked for instead; issue 24's peers.
  const gateway = gatewayStarter(settings, sandbox, { CACHE_TTL_MS: String(CACHE_TTL_MS) }, log);
  const starters: [TargetName, () => Promise<Target>][] = [
    ...(gateway ? [gateway] : []),
    ['apollo', () => startPeer('apollo', sandbox)],
    ['yoga', () => startPeer('yoga', sandbox)],
  ];
  const rows: DashboardRow[] = [];
  for (const [name, start] of starters) {
    if (!wanted.has(name)) continue;
    const target = await start();
    try {
      for (const viewers of settings.BENCH_DASHBOARD_VIEWERS) {
        log(`dashboard: ${TARGET_LABELS[name]}, ${viewers} viewers for ${seconds} s`);
        rows.push(await run(target, viewers, seconds, upstream));
      }
    } finally {
      await target.stop();
    }
  }
  return { seconds, guaranteeMs: CACHE_TTL_MS, rows };
}
