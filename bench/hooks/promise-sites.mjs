// Preloaded into a gateway or peer by bench/sites.ts (`--import`): counts the promises the process makes between
// SIGWINCH (start) and SIGUSR2 (stop, and write the count to sites-<pid>.json in the temporary directory), each by where it was made: the first
// frame in src/ (with the package whose code made it, when it is a dependency's), or, for a promise made by the
// engine (an `await`, a `then` of a thenable), its own first frames and the site of the promise it continues.
// A stack per promise: slow, for counting only, never for timing.
import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

Error.stackTraceLimit = 40;
const short = (line) => line.replace(/^at /, '').replace(/\(.*\/(src|bench|node_modules)\//, '($1/');
let counting = false;
let total = 0;
const bySite = new Map();
const siteOf = new Map();
createHook({
  init(id, type, trigger) {
    if (type !== 'PROMISE' || !counting) return;
    total++;
    const stack = new Error().stack
      .split('\n')
      .slice(2)
      .map((l) => l.trim())
      .filter((l) => !l.includes('node:internal/async_hooks') && !l.includes('promise-sites.mjs'));
    const own = stack.find((l) => l.includes('/src/') && !l.includes('node_modules'));
    const pkg = (stack[0]?.match(/node_modules\/((@[^/]+\/)?[^/]+)/) ?? [])[1];
    const site = own ? `${pkg ? `${pkg} via ` : ''}${short(own)}` : stack.slice(0, 2).map(short).join(' < ');
    siteOf.set(id, own ? site : (siteOf.get(trigger) ?? site));
    const key = own ? site : `${site}  [continues: ${siteOf.get(trigger) ?? '?'}]`;
    bySite.set(key, (bySite.get(key) ?? 0) + 1);
  },
}).enable();
process.on('SIGWINCH', () => {
  counting = true;
  total = 0;
  bySite.clear();
  siteOf.clear();
});
process.on('SIGUSR2', () => {
  counting = false;
  writeFileSync(join(tmpdir(), `sites-${process.pid}.json`), JSON.stringify({ total, sites: [...bySite].sort((a, b) => b[1] - a[1]) }));
});
