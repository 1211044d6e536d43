import { describe, expect, it } from 'vitest';
import { ratioGoal, verdictOf } from '../../bench/goals.js';
import { loadSettings } from '../../bench/settings.js';

// The bench claims a lead only where the rounds' ranges do not overlap (issue 30); these pin that rule and
// the knobs the full run's duration depends on.

const spread = (median: number, min: number, max: number) => ({ median, min, max });

describe('bench goals', () => {
  it('claims a lead or a gap only where the ranges do not overlap', () => {
    // Lower is better (CPU, latency).
    expect(verdictOf(spread(5, 4, 6), spread(8, 7, 9))).toBe('lead');
    expect(verdictOf(spread(8, 7, 9), spread(5, 4, 6))).toBe('behind');
    expect(verdictOf(spread(5, 4, 7), spread(8, 7, 9))).toBe('within noise');
    // Higher is better (queries per second).
    expect(verdictOf(spread(80, 75, 85), spread(60, 55, 70), true)).toBe('lead');
    expect(verdictOf(spread(60, 55, 70), spread(80, 75, 85), true)).toBe('behind');
  });

  it('holds the ratio of medians to its bound, whatever the verdict', () => {
    const goal = ratioGoal({ goal: 'nested CPU', ours: spread(9, 6, 12), theirs: spread(10, 9, 11), theirName: 'yoga + graphql-jit', bound: 1 });
    expect(goal).toMatchObject({ ratio: 0.9, met: true, verdict: 'within noise', bound: '≤ 1×' });
    expect(goal.against).toBe('yoga + graphql-jit 10 [9–11]');
    const qps = ratioGoal({ goal: 'q/s', ours: spread(50, 48, 52), theirs: spread(60, 58, 62), theirName: 'yoga', bound: 1, higherIsBetter: true });
    expect(qps).toMatchObject({ ratio: 0.83, met: false, verdict: 'behind', bound: '≥ 1×' });
  });

  it('runs every scenario and target but the tsx gateway by default, five rounds; BENCH_QUICK shortens', () => {
    const full = loadSettings({});
    expect(full.BENCH_SCENARIOS).toContain('outage');
    expect(full.BENCH_SCENARIOS).toContain('capacity');
    expect(full.BENCH_TARGETS).toEqual(['gateway-compiled', 'gateway-baseline', 'apollo', 'yoga', 'yoga-jit']);
    expect(full.BENCH_ROUNDS).toBe(5);
    expect(full.BENCH_OUTAGE_S).toBe(60);
    const quick = loadSettings({ BENCH_QUICK: '1', BENCH_ROUNDS: '3' });
    expect(quick.BENCH_ROUNDS).toBe(3);
    expect(quick.BENCH_OUTAGE_S).toBe(10);
    expect(() => loadSettings({ BENCH_TARGETS: 'yoga,nope' })).toThrow(/BENCH_TARGETS/);
  });
});
