import { spawnSync } from 'node:child_process';

// What V8's scavenger keeps alive that it need not: ten "operations" at a time, each a 2,000-object value tied
// to a small key that dies with the operation, three thousand rounds, in a child process under
// `--trace-gc-nvp --max-semi-space-size=64` (start:prod's young generation), once per way of tying them. Prints
// the bytes promoted to the old generation (by scavenges and by full collections' young part) and the full
// collections. On Node 20 (2026-11-29): no tie, a symbol property and a WeakRef 47 MB and one full collection; a
// WeakMap that lives long (so sits in the old generation) 176 MB and 155; a FinalizationRegistry entry 3.9 GB
// and 75. This is why scope auth's per-operation cache is dropped when an operation ends
// (src/edge/use-scope-cache-release.ts).
// Usage: node --import tsx bench/weak-retention.ts

const CHILD = `
const mode = process.argv[1];
const map = new WeakMap();
const registry = new FinalizationRegistry(() => {});
const tie = Symbol('tie');
// Old enough for the old generation before the operations start, as a module's map is.
for (let i = 0; i < 5; i++) Array.from({ length: 300_000 }, (_, j) => ({ j }));
async function operation(i) {
  const key = { i };
  const value = { objects: Array.from({ length: 2000 }, (_, k) => ({ k, text: 'x' + k })) };
  if (mode === 'WeakMap value') map.set(key, value);
  else if (mode === 'symbol property') key[tie] = value;
  else if (mode === 'WeakRef') key.ref = new WeakRef(value);
  else if (mode === 'FinalizationRegistry target') registry.register(value, i);
  await new Promise((resolve) => setImmediate(resolve));
  return value.objects.length;
}
for (let round = 0; round < 3000; round++) await Promise.all(Array.from({ length: 10 }, (_, c) => operation(round * 10 + c)));
`;

const MODES = ['none', 'symbol property', 'WeakRef', 'WeakMap value', 'FinalizationRegistry target'];
console.log('| tied by | MB promoted | full collections |\n|---|---|---|');
for (const mode of MODES) {
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', '--max-semi-space-size=64', '--input-type=module', '-e', CHILD, mode], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${mode}: exited ${run.status}\n${run.stderr}`);
  let promoted = 0;
  let full = 0;
  for (const line of run.stdout.split('\n')) {
    const gc = / gc=(\S+)/.exec(line)?.[1];
    if (!gc) continue;
    // Promoted by scavenges and by the young-generation part of full collections alike.
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    if (gc !== 's') full++;
  }
  console.log(`| ${mode} | ${(promoted / 1024 / 1024).toFixed(0)} | ${full} |`);
}
