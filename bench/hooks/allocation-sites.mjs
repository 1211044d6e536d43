// Preloaded into a gateway or peer by bench/sites.ts (`--import`): V8's sampling heap profiler between SIGWINCH
// (start) and SIGUSR2 (stop, and write to sites-<pid>.json in the temporary directory the bytes allocated by each site: a function and its two
// callers), counting objects already collected too, so it measures what a query allocates, not what it keeps.
// Imported with `?promoted`, it counts only what no scavenge collected (what a mark-compact freed still counts):
// the bytes promoted to the old generation, which only a full collection gives back.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const promoted = new URL(import.meta.url).search === '?promoted';
const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
const frame = (f) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/')}:${f.lineNumber + 1}`;
process.on('SIGWINCH', () => {
  void post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !promoted,
  });
});
process.on('SIGUSR2', async () => {
  const { profile } = await post('HeapProfiler.stopSampling');
  const bySite = new Map();
  let total = 0;
  const walk = (node, callers) => {
    const stack = [frame(node.callFrame), ...callers].slice(0, 3);
    if (node.selfSize) {
      total += node.selfSize;
      const key = stack.join(' < ');
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, stack);
  };
  walk(profile.head, []);
  writeFileSync(join(tmpdir(), `sites-${process.pid}.json`), JSON.stringify({ total, sites: [...bySite].sort((a, b) => b[1] - a[1]) }));
});
