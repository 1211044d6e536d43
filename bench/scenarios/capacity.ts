import type { SandboxStats } from '../clients.js';
import type { Settings } from '../settings.js';
import { TARGET_LABELS, type TargetName } from '../targets.js';
import { startShieldTargets, stopShieldTargets, viewers, writer, type ShieldTarget } from './shield-targets.js';

// Capacity (issue 24): the sandbox's capacity fault at 10 requests a second (POST /__sandbox/capacity, burst
// 10: every request above it answered 429) while BENCH_SHIELD_VIEWERS viewers per target reload the 10-order
// view every second and, for the gateway, one createCampaign goes in every second, for BENCH_CAPACITY_S
// seconds. No fixed upstream budget is set: the gateway must find the limit itself. Every target runs at the
// same time on a sandbox of its own. Reported: the share of upstream requests answered 429 after the first
// 10 s (goal ≤ 5 % for the gateway), the writes answered, the reads answered in full.

const CAPACITY_PER_SECOND = 10;
/** The gateway may take this long to find the limit; 429s are counted after it. */
const LEARNING_S = 10;

export interface CapacityRow {
  target: TargetName;
  label: string;
  requestsAfterLearning: number;
  share429AfterLearning: number;
  acceptedPerSecond: number;
  reads: number;
  readsAnsweredShare: number;
  writes: number;
  writesAnswered: number;
}

export interface CapacityResult {
  perSecond: number;
  seconds: number;
  viewers: number;
  rows: CapacityRow[];
}

async function measure(t: ShieldTarget, settings: Settings, t0: number, end: number): Promise<CapacityRow> {
  let reads = 0;
  let full = 0;
  let writes = 0;
  let created = 0;
  await Promise.all([
    viewers(
      t.target.url,
      t.refs,
      settings.BENCH_SHIELD_VIEWERS,
      () => Date.now() >= end,
      (answer) => {
        reads += 1;
        if (answer.full) full += 1;
      },
    ),
    t.writes
      ? writer(
          t.target.url,
          `bench-capacity-${Date.now()}`,
          () => Date.now() >= end,
          (typename) => {
            writes += 1;
            if (typename === 'CreateCampaignPayload') created += 1;
          },
        )
      : Promise.resolve(),
  ]);
  const stats: SandboxStats = await t.upstream.stats();
  // Whole seconds from the 11th to the last full one.
  const from = Math.floor(t0 / 1000) + LEARNING_S;
  const to = Math.floor(end / 1000);
  const sum = (counts: Record<string, number>) => Object.entries(counts).reduce((n, [s, c]) => (Number(s) >= from && Number(s) < to ? n + c : n), 0);
  const sent = sum(stats.perSecond);
  const throttled = sum(stats.throttledPerSecond);
  return {
    target: t.target.name,
    label: TARGET_LABELS[t.target.name],
    requestsAfterLearning: sent,
    share429AfterLearning: sent ? throttled / sent : 0,
    acceptedPerSecond: Math.round(((sent - throttled) / Math.max(1, to - from)) * 10) / 10,
    reads,
    readsAnsweredShare: reads ? full / reads : 0,
    writes,
    writesAnswered: created,
  };
}

export async function capacity({ settings, log }: { settings: Settings; log: (m: string) => void }): Promise<CapacityResult> {
  const targets = await startShieldTargets(settings, log, 'capacity');
  try {
    for (const t of targets) await t.upstream.capacity({ per_second: CAPACITY_PER_SECOND, burst: CAPACITY_PER_SECOND });
    const t0 = Date.now();
    const end = t0 + settings.BENCH_CAPACITY_S * 1000;
    log(
      `capacity: ${targets.length} targets at once, ${settings.BENCH_SHIELD_VIEWERS} viewers each, upstream capacity ${CAPACITY_PER_SECOND}/s for ${settings.BENCH_CAPACITY_S} s`,
    );
    const rows = await Promise.all(targets.map((t) => measure(t, settings, t0, end)));
    return { perSecond: CAPACITY_PER_SECOND, seconds: settings.BENCH_CAPACITY_S, viewers: settings.BENCH_SHIELD_VIEWERS, rows };
  } finally {
    await stopShieldTargets(targets);
  }
}
