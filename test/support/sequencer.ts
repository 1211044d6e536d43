import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Vitest's order (within a project: slowest first by the last run's durations, else largest file first) with the
// projects in the order that finishes soonest: the process suites first, as they are the longest and spend much of
// their time waiting on the processes they start, so the short in-process files fill the workers they leave at the
// end. Vitest's own order runs projects by name, which put the process suites last, where the longest of them ran
// nearly alone.
const projectOrder = ['processes', 'in-process'];

export default class ProcessSuitesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => projectOrder.indexOf(spec.project.name);
    // A stable sort: each project keeps the order Vitest gave it.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
