import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

// Summarises a `--cpu-prof` profile of the gateway: where its CPU time went, by function (self time) and by
// package (node_modules/<name>, src/<dir>, or node internals). Usage:
//   node --import tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top]

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

// Each sample counts as one interval of CPU, not as the wall time since the previous one (timeDeltas): V8 samples
// the running thread, so a process descheduled on a shared machine takes its next sample late, and the whole gap
// went to whatever function it was in (one such sample put 67 ms on URL.canParse in a profile of 1,000 queries
// where it had run for about 9). Counts are proportional to CPU time; PROFILE_WALL=1 sums the deltas as before.
const wall = process.env.PROFILE_WALL === '1';
const interval = median(profile.timeDeltas);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (wall ? (profile.timeDeltas[i] ?? 0) : interval)));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

function area(rawUrl: string, name: string): string {
  // The compiled gateway (bench/results/compiled/) is src/ as far as the reader is concerned.
  const url = rawUrl.replace('/bench/results/compiled/', '/src/');
  if (!url) return name === '(garbage collector)' || name === '(idle)' || name === '(program)' ? name : '(native)';
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg;
  const src = url.match(/\/(src|bench)\/([^/]+)/);
  if (src) return src[2]!.endsWith('.ts') ? `${src[1]}/${src[2]}` : `${src[1]}/${src[2]}/`;
  return url.startsWith('node:') ? 'node internals' : url;
}

// The production build is one bundle (dist/main.js and its chunks): through its source maps each sample is put
// back where it was written (src/<dir>, node_modules/<package>), as a profile of the unbundled code reads.
const maps = new Map<string, SourceMap | null>();
function original(frame: Node['callFrame']): { url: string; lineNumber: number } {
  if (!frame.url.startsWith('file://')) return frame;
  if (!maps.has(frame.url)) {
    // The build's whole map: the one Node reads maps the gateway's own code only (scripts/own-source-maps.ts).
    const whole = `${fileURLToPath(frame.url)}.full.map`;
    const mapFile = existsSync(whole) ? whole : `${fileURLToPath(frame.url)}.map`;
    maps.set(frame.url, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : null);
  }
  const entry = maps.get(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry || !('originalSource' in entry) || !entry.originalSource) return frame;
  // Sources are named relative to the bundle (esbuild: `../src/…`, `../node_modules/…`).
  return { url: new URL(entry.originalSource, frame.url).href, lineNumber: entry.originalLine };
}

const functions = new Map<string, number>();
const areas = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  const { functionName } = frame;
  const { url, lineNumber } = original(frame);
  const where = url ? `${url.replace(/^.*?(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  functions.set(key, (functions.get(key) ?? 0) + us);
  areas.set(area(url, functionName), (areas.get(area(url, functionName)) ?? 0) + us);
}

const busyUs = totalUs - (areas.get('(idle)') ?? 0);
const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title} (share of ${(busyUs / 1e6).toFixed(1)} s busy${wall ? ', wall time between samples' : `, samples x ${interval} us`})`);
  for (const [key, us] of [...entries]
    .filter(([k]) => k !== '(idle)' && !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    console.log(`${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${key}`);
  }
};
print('Self time by package', areas);
print('Self time by function', functions);
