import { readFileSync } from 'node:fs';

// Summarises a V8 heap snapshot (.heapsnapshot): self size by node type and by constructor or string kind,
// the largest first. Usage: node --import tsx bench/heap-summary.ts <file.heapsnapshot> [top]

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-summary.ts <file.heapsnapshot> [top]');
const top = Number(topArg ?? 25);
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const fields = snap.snapshot.meta.node_fields;
const types = snap.snapshot.meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];

const byType = new Map<string, number>();
const byName = new Map<string, number>();
let total = 0;
for (let i = 0; i < snap.nodes.length; i += fields.length) {
  const type = types[snap.nodes[i + typeAt]!]!;
  const size = snap.nodes[i + sizeAt]!;
  total += size;
  byType.set(type, (byType.get(type) ?? 0) + size);
  // Strings and code are grouped by kind; objects, closures and arrays by their constructor or name.
  const name =
    type === 'string' || type === 'concatenated string' || type === 'sliced string'
      ? '(strings)'
      : type === 'code'
        ? '(compiled code)'
        : `${snap.strings[snap.nodes[i + nameAt]!]} [${type}]`;
  byName.set(name, (byName.get(name) ?? 0) + size);
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title} (of ${mb(total)} in the snapshot)`);
  for (const [key, size] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${mb(size).padStart(9)}  ${key.slice(0, 100)}`);
};
print('Self size by node type', byType);
print('Self size by name', byName);
