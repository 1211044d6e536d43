// V8's own account of each collection, from `--trace-gc-nvp` (one line of name=value pairs per collection:
// `pause=1.2 … gc=s … allocated=… promoted=… new_space_survived=…`), summed over the lines given. Read by
// bench/gc.ts, bench/promotion.ts and test/shared/registry-retention.test.ts.

const FIELD = /(?:^|\s)(pause|gc|allocated|promoted|new_space_survived)=(\S+)/g;

export interface GcTally {
  scavenges: number;
  /** Every collection that is not a scavenge. */
  fullGcs: number;
  pauseMs: number;
  allocatedKb: number;
  /** Moved to the old generation (alive at two scavenges in a row, or at a full collection). */
  promotedKb: number;
  survivedKb: number;
}

export function tallyGcLines(lines: string[]): GcTally {
  const t: GcTally = { scavenges: 0, fullGcs: 0, pauseMs: 0, allocatedKb: 0, promotedKb: 0, survivedKb: 0 };
  for (const line of lines) {
    const fields = new Map([...line.matchAll(FIELD)].map((m) => [m[1]!, m[2]!]));
    if (!fields.has('gc')) continue;
    if (fields.get('gc') === 's') t.scavenges++;
    else t.fullGcs++;
    t.pauseMs += Number(fields.get('pause') ?? 0);
    t.allocatedKb += Number(fields.get('allocated') ?? 0) / 1024;
    t.promotedKb += Number(fields.get('promoted') ?? 0) / 1024;
    t.survivedKb += Number(fields.get('new_space_survived') ?? 0) / 1024;
  }
  return t;
}
