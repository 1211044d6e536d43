import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tallyGcLines } from '../../bench/gc-trace.js';

// What V8's collector keeps of things that left a registry living as long as the process: measured in a process
// of its own (registry-churn.ts), from V8's own account of each collection. The registry must hold nothing of
// what has left, not even for the scavenger, which counts every pointer from the old generation as live, dead
// objects' included. A Set or a Map in its place (the stop signals', the drain's and the read cache's before)
// kept what passed through it alive through two scavenges once one full collection had happened: every upstream
// answer of every read, and the gateway's old generation grew with it (bench/RESULTS.md 0p;
// src/shared/registry.ts).

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

async function promotedShare(registry: 'stops' | 'drain' | 'loads'): Promise<{ allocated: number; share: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--max-semi-space-size=16', '--trace-gc-nvp', '--import', 'tsx', 'test/shared/registry-churn.ts', registry, '10000'],
    // A hung child must not outlive the test.
    { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 50_000 },
  );
  const { allocatedKb, promotedKb } = tallyGcLines(stdout.slice(stdout.indexOf('CHURN-START'), stdout.indexOf('CHURN-END')).split('\n'));
  return { allocated: allocatedKb * 1024, share: promotedKb / allocatedKb };
}

describe('a registry that lives as long as the process', () => {
  // Ten in flight hold about 0.2 MB; about 150 MB pass through. With a Set or a Map, 24–39 % of it was promoted.
  it.each(['stops', 'drain', 'loads'] as const)('keeps nothing of what left it, for the scavenger either (%s)', async (registry) => {
    const { allocated, share } = await promotedShare(registry);
    expect(allocated).toBeGreaterThan(40 * 1024 * 1024);
    expect(share).toBeLessThan(0.05);
  });
});
