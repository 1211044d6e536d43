// Preloaded into a gateway by bench/gc.ts (`GC_FLAGS="--enable-source-maps --max-semi-space-size=64 --import
// ./bench/hooks/weakmap-sets.mjs"`): counts the sets of every WeakMap the process makes, by the site that made
// the map, with the kinds of the values set, and writes the busiest to weakmap-sets-<pid>.txt in the temporary
// directory when the process is stopped. A WeakMap that lives long and is set once per operation with a value
// that holds the operation (its context, its loaders) keeps every operation in flight at a scavenge alive through
// the next one: V8's scavenger holds the values of an old WeakMap strongly (bench/weak-retention.ts). Node's own
// maps (primordials) are not seen.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const Native = WeakMap;
const bySite = new Map();
const kindOf = (v) =>
  v === null || typeof v !== 'object' ? typeof v : `${v.constructor?.name ?? 'Object'} {${Object.keys(v).slice(0, 6).join(', ')}}`;
globalThis.WeakMap = class CountedWeakMap extends Native {
  #site;
  constructor(entries) {
    // Entries are set after the site is known: the native constructor would call the overridden set() first.
    super();
    const site = (new Error().stack ?? '')
      .split('\n')
      .slice(2, 4)
      .map((s) => s.trim())
      .join(' ← ');
    this.#site = bySite.get(site) ?? { site, maps: 0, sets: 0, kinds: new Map() };
    this.#site.maps++;
    bySite.set(site, this.#site);
    for (const [key, value] of entries ?? []) this.set(key, value);
  }
  set(key, value) {
    const s = this.#site;
    s.sets++;
    const kind = kindOf(value);
    s.kinds.set(kind, (s.kinds.get(kind) ?? 0) + 1);
    return super.set(key, value);
  }
};
const write = () => {
  const rows = [...bySite.values()]
    .filter((s) => s.sets > 0)
    .sort((a, b) => b.sets - a.sets)
    .slice(0, 20)
    .map((s) => `${s.sets} sets in ${s.maps} map(s) made at ${s.site}\n  values: ${[...s.kinds].map(([k, n]) => `${k} ×${n}`).join('; ')}`);
  writeFileSync(join(tmpdir(), `weakmap-sets-${process.pid}.txt`), `${rows.join('\n')}\n`);
};
// Before the process's own stop (the gateway's graceful one); a process with none stops as it would have.
process.prependOnceListener('SIGTERM', () => {
  write();
  if (process.listenerCount('SIGTERM') === 0) process.exit(0);
});
