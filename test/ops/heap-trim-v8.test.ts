import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FLOOR_BYTES } from '../../src/ops/heap-trim.js';

// The heap trim against V8 itself (heap-trim-child.ts, in a process of its own with start:prod's flags): after a
// load that grew the young generation to start:prod's 128 MB and promoted pages of objects that then died, the
// young generation comes back under the floor once the load is over and the old generation's dead pages are
// freed, where the same process without the trim keeps both (V8 shrinks and sweeps only in a collection, and
// nothing collects a quiet process). V8 shrinks once it has seen 5 s of low allocation: this takes about six
// seconds.

const root = fileURLToPath(new URL('../../', import.meta.url));
const MB = 1024 * 1024;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The child's reports of its young generation, as they come. */
interface Report {
  /** The young generation's committed bytes. */
  young: number;
  /** The old generation's used bytes. */
  old: number;
}

function heapOf(afterMs: number): { reports: Report[]; next(predicate: (report: Report) => boolean): Promise<Report> } {
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=64', '--expose-gc', '--import', 'tsx', 'test/ops/heap-trim-child.ts', String(afterMs)],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const reports: Report[] = [];
  const waiters: { predicate(report: Report): boolean; resolve(report: Report): void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const report = JSON.parse(line) as Report;
    reports.push(report);
    for (const waiter of waiters.filter((w) => w.predicate(report))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(report);
    }
  });
  return {
    reports,
    next: (predicate) =>
      new Promise((resolve, reject) => {
        waiters.push({ predicate, resolve });
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) first`)));
      }),
  };
}

describe('the heap trim, with V8', () => {
  it('gives back what a load left once it is over; without it, V8 keeps all of it', { timeout: 40_000 }, async () => {
    const trimmed = heapOf(250);
    const untrimmed = heapOf(0);
    // Both loads over, each with its young generation grown and dead pages in its old generation.
    const [before, control] = [await trimmed.next(() => true), await untrimmed.next(() => true)];
    for (const { young } of [before, control]) expect(young).toBeGreaterThan(64 * MB);
    // The young generation shrunk, then (a quiet second later) the old generation's dead pages freed.
    const after = await trimmed.next(({ young, old }) => young <= FLOOR_BYTES && old < before.old / 2);
    expect(after.young).toBeLessThanOrEqual(FLOOR_BYTES);
    // As long again for the other: still all of it.
    const waited = trimmed.reports.length;
    await untrimmed.next(() => untrimmed.reports.length >= waited);
    expect(Math.min(...untrimmed.reports.map((r) => r.young))).toBeGreaterThan(64 * MB);
    expect(Math.min(...untrimmed.reports.map((r) => r.old))).toBeGreaterThan(control.old / 2);
  });
});
