import { requestDelta, type SandboxStats } from '../clients.js';
import { sleep } from '../context.js';
import { metricValue } from '../processes.js';
import type { Settings } from '../settings.js';
import { startShieldTargets, stopShieldTargets, viewers, writer, type ShieldTarget } from './shield-targets.js';
import { TARGET_LABELS, type TargetName } from '../targets.js';

// Outage (issue 24): BENCH_SHIELD_VIEWERS viewers per target reload the 10-order view every second; after
// BENCH_OUTAGE_AROUND_S seconds every request to the reward API (GET /ping included) is answered 503 for
// BENCH_OUTAGE_S seconds, then it answers again for BENCH_OUTAGE_AROUND_S more. Every target runs at the same
// time on a sandbox of its own (shield-targets.ts). Reported per target: the share of reads answered in full
// during the outage (and how many of them the gateway marked stale), the writes and how they were answered,
// the upstream requests sent during the outage (for the gateway: those sent while its circuit was open, from
// the moment /metrics shows it open until the upstream returns; goal: probes only, GET /ping), and the time
// from the upstream's return to the first full, fresh answer.

export interface OutageRow {
  target: TargetName;
  label: string;
  reads: number;
  answeredShare: number;
  staleShare: number;
  writes: number;
  /** Answers to the writes during the outage: __typename or error code → count. */
  writeAnswers: Record<string, number>;
  /** The gateway: writes sent once its circuit was seen open, and of them those refused as UpstreamUnavailable. */
  writesWhileOpen: number;
  refusedWhileOpen: number;
  /** Upstream requests by route sent during the outage. */
  sentDuringOutage: Record<string, number>;
  /** The gateway: upstream requests by route sent while its circuit was open (null: never seen open, or a peer). */
  sentWhileOpen: Record<string, number> | null;
  /** Seconds from the upstream's return to the first full answer not marked stale (null: none came). */
  recoverySeconds: number | null;
}

export interface OutageResult {
  viewers: number;
  outageSeconds: number;
  rows: OutageRow[];
}

async function circuitOpen(url: string): Promise<boolean> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    return metricValue(text, 'reward_gateway_upstream_circuit_state{state="closed"}') === 0;
  } catch {
    return false;
  }
}

async function measure(t: ShieldTarget, settings: Settings, down: { from: number; to: number }, end: number): Promise<OutageRow> {
  const during = { reads: 0, full: 0, stale: 0, writes: 0 };
  const writeAnswers: Record<string, number> = {};
  let recoveredAt: number | null = null;
  let atFault: SandboxStats | null = null;
  let atOpen: SandboxStats | null = null;
  let openAt: number | null = null;
  const whileOpen = { writes: 0, refused: 0 };
  let atReturn: SandboxStats | null = null;
  const inOutage = (at: number) => at >= down.from && at < down.to;

  const faults = (async () => {
    await sleep(down.from - Date.now());
    atFault = await t.upstream.stats();
    await t.upstream.fault({ status: 503, rate: 1 });
    // The gateway: watch its circuit until it opens (a peer has none).
    while (t.writes && !atOpen && Date.now() < down.to - 200) {
      if (await circuitOpen(t.target.url)) {
        openAt = Date.now();
        atOpen = await t.upstream.stats();
      } else await sleep(100);
    }
    await sleep(down.to - Date.now());
    atReturn = await t.upstream.stats();
    await t.upstream.clearFaults();
  })();
  const reading = viewers(
    t.target.url,
    t.refs,
    settings.BENCH_SHIELD_VIEWERS,
    () => Date.now() >= end,
    (answer, at) => {
      if (inOutage(at)) {
        during.reads += 1;
        if (answer.full) during.full += 1;
        if (answer.full && answer.stale) during.stale += 1;
      }
      if (at >= down.to && answer.full && !answer.stale && recoveredAt === null) recoveredAt = at;
    },
  );
  const writing = t.writes
    ? writer(
        t.target.url,
        `bench-outage-${Date.now()}`,
        () => Date.now() >= end,
        (typename, at) => {
          if (!inOutage(at)) return;
          during.writes += 1;
          writeAnswers[typename] = (writeAnswers[typename] ?? 0) + 1;
          // A write sent before the circuit opened may already be on its way upstream (OutcomeUnknown is then
          // the honest answer); one sent while it is open must be refused with nothing sent.
          if (openAt !== null && at >= openAt) {
            whileOpen.writes += 1;
            if (typename === 'UpstreamUnavailable') whileOpen.refused += 1;
          }
        },
      )
    : Promise.resolve();
  await Promise.all([faults, reading, writing]);
  return {
    target: t.target.name,
    label: TARGET_LABELS[t.target.name],
    reads: during.reads,
    answeredShare: during.reads ? during.full / during.reads : 0,
    staleShare: during.reads ? during.stale / during.reads : 0,
    writes: during.writes,
    writeAnswers,
    writesWhileOpen: whileOpen.writes,
    refusedWhileOpen: whileOpen.refused,
    sentDuringOutage: atFault && atReturn ? requestDelta(atFault, atReturn) : {},
    sentWhileOpen: atOpen && atReturn ? requestDelta(atOpen, atReturn) : null,
    recoverySeconds: recoveredAt === null ? null : Math.max(0, Math.round((recoveredAt - down.to) / 100) / 10),
  };
}

export async function outage({ settings, log }: { settings: Settings; log: (m: string) => void }): Promise<OutageResult> {
  const targets = await startShieldTargets(settings, log, 'outage');
  try {
    const around = settings.BENCH_OUTAGE_AROUND_S * 1000;
    const t0 = Date.now();
    const down = { from: t0 + around, to: t0 + around + settings.BENCH_OUTAGE_S * 1000 };
    const end = down.to + around;
    log(
      `outage: ${targets.length} targets at once, ${settings.BENCH_SHIELD_VIEWERS} viewers each; 503s for ${settings.BENCH_OUTAGE_S} s after ${settings.BENCH_OUTAGE_AROUND_S} s`,
    );
    const rows = await Promise.all(targets.map((t) => measure(t, settings, down, end)));
    return { viewers: settings.BENCH_SHIELD_VIEWERS, outageSeconds: settings.BENCH_OUTAGE_S, rows };
  } finally {
    await stopShieldTargets(targets);
  }
}
