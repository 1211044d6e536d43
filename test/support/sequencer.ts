import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take long and whose place in the order vitest picks does not show it. The process suites whose set-up
 * is long and whose file is short: a Redis Cluster or a Sentinel trio to form, replicas to start and kill, a
 * tracing collector per case. Vitest orders files by their last duration (tests only, not set-up) or, in a fresh
 * clone, by size, so these ran last and alone while the other workers sat idle (`npm test`, 2026-11-29: in the
 * last 15 s of the process suites only the Redis Cluster and Sentinel suites ran). And the in-process files that wait longest on their own
 * load and timers (the capacity suite, 11 s, started 40 s into the in-process files and ended them 1 s after the
 * rest). They start first, in this order; every other file keeps vitest's order. With three process workers the
 * shared rate-limit and Redis economy suites (10 and 7 s, waiting on their own intervals) were the last two left,
 * 60 s in; they and the `npm start` suite (11 s) now start with the others that take longest. Both projects share
 * one group and one pool (vitest.config.ts), so the process suites of this list open the run, on all four
 * workers, and the in-process files of it follow.
 */
const START_FIRST = [
  'test/ops/tracing.test.ts',
  'test/live/cluster-redis-cluster.test.ts',
  'test/live/cluster-sentinel.test.ts',
  'test/live/cluster-redis-failure.test.ts',
  'test/docs/cluster-walkthrough.test.ts',
  'test/ops/main-process.test.ts',
  'test/security/shared-rate-limit.test.ts',
  'test/live/cluster-redis-economy.test.ts',
  'test/graph/differential.test.ts',
  'test/upstream/capacity.test.ts',
  'test/upstream/pipeline.test.ts',
];

export default class SlowSetUpFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = START_FIRST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return index < 0 ? START_FIRST.length : index;
    };
    // Array.prototype.sort is stable: vitest's order stays among the files of the same rank. Vitest calls this
    // once per group of projects (sequence.groupOrder), so there is no group to keep apart here.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
