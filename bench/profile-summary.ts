import { readFileSync } from 'node:fs';

// Summarises a `--cpu-prof` profile of the gateway: where its CPU time went, by function (self time) and by
// package (node_modules/<name>, src/<dir>, or node internals). Usage:
//   node --import tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top]

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
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

const functions = new Map<string, number>();
const areas = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${url.replace(/^.*?(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  functions.set(key, (functions.get(key) ?? 0) + us);
  areas.set(area(url, functionName), (areas.get(area(url, functionName)) ?? 0) + us);
}

const busyUs = totalUs - (areas.get('(idle)') ?? 0);
const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title} (share of ${(busyUs / 1e6).toFixed(1)} s busy)`);
  for (const [key, us] of [...entries]
    .filter(([k]) => k !== '(idle)' && !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    console.log(`${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${key}`);
  }
};
print('Self time by package', areas);
print('Self time by function', functions);
