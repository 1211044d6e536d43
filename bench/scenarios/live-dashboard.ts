import { applyJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { percentile, sleep } from '../context.js';
import { AUTH_HEADERS, TARGET_LABELS, type Target } from '../targets.js';
import type { CompareContext } from './compare.js';
import { CACHE_TTL_MS, createOrders, gatewayStarter, ORDERS, redeemUntil, REWARDS, upstreamPerSecond } from './dashboard-workload.js';
import { NESTED } from './nested-read.js';

// Live dashboard (`live-dashboard`): the reload dashboard's view, orders and redemptions (dashboard-workload.ts),
// held as one `@live` query with JSON patches by 1, 10 and 50 viewers (BENCH_DASHBOARD_VIEWERS, one WebSocket
// each) for BENCH_DASHBOARD_S seconds, on the gateway with its read cache and POLL_INTERVAL_MS =
// BENCH_POLL_INTERVAL_MS. Each viewer applies its patches; change → patch is the time from a redemption's answer
// to the first payload showing it REDEEMED, per viewer. Reported: upstream requests per second, change → patch
// p50 and p99, bytes per viewer per minute, a change's payload beside the whole result (issue 38's goals).

const LIVE = NESTED.replace(/^query Nested\(\$refs: \[ID!\]!\)/, '$& @live');

export interface LiveDashboardRow {
  viewers: number;
  /** Redemptions during the run, and (viewer, redemption) pairs never shown. */
  changes: number;
  missed: number;
  errors: number;
  upstreamPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerViewerPerMinute: number;
  fullResultBytes: number;
  /** Mean bytes of a payload after the first (a patch). */
  meanPatchBytes: number;
}

export interface LiveDashboardResult {
  label: string;
  seconds: number;
  pollIntervalMs: number;
  rows: LiveDashboardRow[];
}

interface Viewer {
  client: Client;
  data: Record<string, unknown> | null;
  firstBytes: number;
  bytes: number;
  patches: number;
  /** Redeemed rewards this viewer has not been shown yet. */
  waiting: Set<string>;
  errors: number;
}

const statusesOf = (data: any): Map<string, string> => {
  const statuses = new Map<string, string>();
  for (const campaign of data?.campaigns ?? []) for (const edge of campaign?.gifts?.edges ?? []) statuses.set(edge.node.uuid, edge.node.status);
  return statuses;
};

function openViewer(url: string, refs: string[], redeemedAt: Map<string, number>, latencies: number[]): Promise<Viewer> {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: { authorization: AUTH_HEADERS.authorization },
  });
  const viewer: Viewer = { client, data: null, firstBytes: 0, bytes: 0, patches: 0, waiting: new Set(), errors: 0 };
  return new Promise((resolve, reject) => {
    client.subscribe<any>(
      { query: LIVE, variables: { refs }, extensions: { livePatch: 'json-patch' } },
      {
        next: (payload: any) => {
          const now = Date.now();
          const bytes = Buffer.byteLength(JSON.stringify(payload));
          if (payload.errors) viewer.errors += 1;
          if (payload.revision === 1) {
            viewer.data = payload.data;
            if (!viewer.firstBytes) {
              viewer.firstBytes = bytes;
              resolve(viewer);
              return;
            }
          } else if (viewer.data && payload.patch) viewer.data = applyJSONPatch(viewer.data, payload.patch);
          viewer.bytes += bytes;
          viewer.patches += 1;
          const statuses = statusesOf(viewer.data);
          for (const uuid of viewer.waiting) {
            if (statuses.get(uuid) !== 'REDEEMED') continue;
            viewer.waiting.delete(uuid);
            latencies.push(now - redeemedAt.get(uuid)!);
          }
        },
        error: (error) => (viewer.firstBytes ? (viewer.errors += 1) : reject(error instanceof Error ? error : new Error(JSON.stringify(error)))),
        complete: () => undefined,
      },
    );
  });
}

async function run(target: Target, viewerCount: number, seconds: number, pollIntervalMs: number, ctx: CompareContext): Promise<LiveDashboardRow> {
  const { upstream } = ctx;
  const orders = await createOrders(upstream, `bench-live-dashboard-${viewerCount}-${Date.now()}`);
  const refs = orders.map((o) => o.ref);
  const redeemedAt = new Map<string, number>();
  const latencies: number[] = [];
  const viewers = await Promise.all(Array.from({ length: viewerCount }, () => openViewer(target.url, refs, redeemedAt, latencies)));
  try {
    // Past every order's poller's first look (and the read past the cache it brings).
    await sleep(2 * pollIntervalMs + 500);
    const before = await upstream.stats();
    const started = Date.now();
    await redeemUntil(upstream, orders, started + seconds * 1_000, (uuid, at) => {
      redeemedAt.set(uuid, at);
      for (const viewer of viewers) viewer.waiting.add(uuid);
    });
    // The last redemption's poll and patch.
    await sleep(pollIntervalMs + 1_000);
    const elapsed = (Date.now() - started) / 1_000;
    const after = await upstream.stats();
    const sorted = [...latencies].sort((a, b) => a - b);
    const bytes = viewers.reduce((sum, v) => sum + v.bytes, 0);
    const patches = viewers.reduce((sum, v) => sum + v.patches, 0);
    return {
      viewers: viewerCount,
      changes: redeemedAt.size,
      missed: viewers.reduce((sum, v) => sum + v.waiting.size, 0),
      errors: viewers.reduce((sum, v) => sum + v.errors, 0),
      upstreamPerSecond: upstreamPerSecond(before, after, elapsed),
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      bytesPerViewerPerMinute: Math.round(bytes / viewerCount / (elapsed / 60)),
      fullResultBytes: viewers[0]!.firstBytes,
      meanPatchBytes: patches ? Math.round(bytes / patches) : 0,
    };
  } finally {
    await Promise.all(viewers.map((v) => v.client.dispose()));
  }
}

export async function liveDashboard(ctx: CompareContext): Promise<LiveDashboardResult | undefined> {
  const { settings, sandbox, log } = ctx;
  const seconds = settings.BENCH_DASHBOARD_S;
  const pollIntervalMs = settings.BENCH_POLL_INTERVAL_MS;
  const gateway = gatewayStarter(
    settings,
    sandbox,
    {
      CACHE_TTL_MS: String(CACHE_TTL_MS),
      POLL_INTERVAL_MS: String(pollIntervalMs),
      POLL_INTERVAL_FLOOR_MS: String(Math.min(pollIntervalMs, 1_000)),
    },
    log,
  );
  if (!gateway) return undefined;
  const [name, start] = gateway;
  const target = await start();
  const rows: LiveDashboardRow[] = [];
  try {
    for (const viewers of settings.BENCH_DASHBOARD_VIEWERS) {
      log(`live dashboard: ${viewers} viewers for ${seconds} s (${ORDERS} orders × ${REWARDS} rewards)`);
      rows.push(await run(target, viewers, seconds, pollIntervalMs, ctx));
    }
  } finally {
    await target.stop();
  }
  return { label: TARGET_LABELS[name], seconds, pollIntervalMs, rows };
}
