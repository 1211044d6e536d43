import { readFileSync } from 'node:fs';

// What one heap snapshot holds beyond another (.heapsnapshot), by constructor or string kind: count and self
// size added, divided by `per` (e.g. the number of subscribers that joined between the two), largest first.
// Usage: node --import tsx bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [per=1] [top=40]

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

function byName(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const totals = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]!]!;
    // Strings and code by kind; objects, closures and arrays by constructor or name.
    const name = type.endsWith('string') ? `(${type})` : type === 'code' ? '(compiled code)' : `${snap.strings[snap.nodes[i + nameAt]!]} [${type}]`;
    const total = totals.get(name) ?? { count: 0, size: 0 };
    total.count += 1;
    total.size += snap.nodes[i + sizeAt]!;
    totals.set(name, total);
  }
  return totals;
}

const [beforeFile, afterFile, perArg, topArg] = process.argv.slice(2);
if (!beforeFile || !afterFile) throw new Error('usage: heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [per] [top]');
const per = Number(perArg ?? 1);
const before = byName(beforeFile);
const after = byName(afterFile);
const rows = [...after].map(([name, a]) => {
  const b = before.get(name) ?? { count: 0, size: 0 };
  return { name, count: (a.count - b.count) / per, size: (a.size - b.size) / per };
});
const total = rows.reduce((sum, r) => sum + r.size, 0);
console.log(`\nSelf size added${per === 1 ? '' : ` per 1/${per} of the difference`}: ${total.toFixed(0)} bytes; by name (count, bytes):`);
for (const row of rows.sort((x, y) => y.size - x.size).slice(0, Number(topArg ?? 40))) {
  console.log(`${row.size.toFixed(0).padStart(9)}  ${row.count.toFixed(2).padStart(8)}  ${row.name.slice(0, 100)}`);
}
