// The goals table: each goal of the issues (17, 22, 24, 30) as one row, measured in this run, met or not, and
// for comparisons with a peer whether the rounds' ranges separate them. A lead is claimed only where the
// ranges do not overlap: on a shared 2-core machine a ratio of medians alone says little.

export type Verdict = 'lead' | 'within noise' | 'behind' | '—';

/** One figure over the rounds of the run (a single measurement has min = median = max). */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface Goal {
  goal: string;
  /** What is measured: the gateway's figure, `median [min–max]` when it has rounds. */
  measured: string;
  /** What it is held against: the best peer's figure (named), or a fixed bound. */
  against: string;
  /** The ratio of medians when the goal is one, else null. */
  ratio: number | null;
  bound: string;
  met: boolean;
  verdict: Verdict;
  /** For the comparison's goals: the table row it belongs to and the gateway target it is of. */
  figure?: string;
  target?: string;
}

const n = (v: number, digits = 2) => String(Math.round(v * 10 ** digits) / 10 ** digits);

export function showSpread(s: Spread, digits = 2): string {
  return s.min === s.max ? n(s.median, digits) : `${n(s.median, digits)} [${n(s.min, digits)}–${n(s.max, digits)}]`;
}

/** Lower is better unless `higherIsBetter`: lead when the whole range of ours beats the whole range of theirs. */
export function verdictOf(ours: Spread, theirs: Spread, higherIsBetter = false): Verdict {
  const [better, worse] = higherIsBetter ? [ours.min > theirs.max, ours.max < theirs.min] : [ours.max < theirs.min, ours.min > theirs.max];
  return better ? 'lead' : worse ? 'behind' : 'within noise';
}

/** A goal held against a peer's figure: ratio of medians within `bound`, verdict from the ranges. */
export function ratioGoal(options: {
  goal: string;
  ours: Spread;
  theirs: Spread;
  theirName: string;
  bound: number;
  higherIsBetter?: boolean;
  digits?: number;
  unit?: string;
}): Goal {
  const { ours, theirs, bound, higherIsBetter = false, digits = 2, unit = '' } = options;
  const ratio = theirs.median === 0 ? (ours.median === 0 ? 1 : Infinity) : ours.median / theirs.median;
  return {
    goal: options.goal,
    measured: `${showSpread(ours, digits)}${unit}`,
    against: `${options.theirName} ${showSpread(theirs, digits)}${unit}`,
    ratio: Math.round(ratio * 100) / 100,
    bound: `${higherIsBetter ? '≥' : '≤'} ${bound}×`,
    met: higherIsBetter ? ratio >= bound : ratio <= bound,
    verdict: verdictOf(ours, theirs, higherIsBetter),
  };
}

/** A goal with a fixed bound (no peer): met or not, no verdict. */
export function boundGoal(goal: string, measured: string, bound: string, met: boolean, against = '—'): Goal {
  return { goal, measured, against, ratio: null, bound, met, verdict: '—' };
}

export function renderGoals(goals: Goal[]): string {
  return [
    '| goal | measured (gateway) | against | ratio | bound | met | verdict (ranges) |',
    '|---|---|---|---|---|---|---|',
    ...goals.map(
      (g) =>
        `| ${g.goal} | ${g.measured} | ${g.against} | ${g.ratio === null ? '—' : n(g.ratio)} | ${g.bound} | ${g.met ? 'yes' : '**no**'} | ${g.verdict} |`,
    ),
  ].join('\n');
}

/** The goals column of a table row: each goal's bound, met or not, and the verdict from the ranges. */
export function goalCell(goals: Goal[]): string {
  return goals.map((g) => `${g.bound}: ${g.met ? 'met' : '**not met**'}${g.verdict === '—' ? '' : ` (${g.verdict})`}`).join('; ');
}
