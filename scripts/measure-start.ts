// Start-up time and memory of the two ways to start the gateway (docs/production.md, "Starting it"):
//   npm start              TypeScript through tsx (development, needs dev dependencies)
//   npm run start:prod     the compiled dist/ with plain node (run `npm run build` first)
// Each is started RUNS times on the embedded sandbox; time is from spawn to the "gateway listening" log line,
// memory the resident set of the whole process tree (npm, shell, node) and of the gateway's node process,
// read from /proc once it listens. Usage: npx tsx scripts/measure-start.ts
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const RUNS = 5;

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      if (ppid === pid) found.push(Number(entry), ...children(Number(entry)));
    } catch {
      // the process left meanwhile
    }
  }
  return found;
}

async function once(script: string): Promise<{ ms: number; treeMb: number; gatewayMb: number }> {
  const started = performance.now();
  const child = spawn('npm', ['run', '--silent', script], {
    env: { ...process.env, PORT: '0', SANDBOX_PORT: '0', NODE_ENV: 'development', REWARD_API_URL: '' },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('"msg":"gateway listening"')) resolve();
    });
    child.on('exit', () => reject(new Error(`${script} exited before listening`)));
  });
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 500));
  const tree = [child.pid!, ...children(child.pid!)];
  const treeKb = tree.reduce((sum, pid) => sum + rssKb(pid), 0);
  // The gateway is the deepest node process of the tree.
  const gatewayKb = rssKb(tree.at(-1)!);
  process.kill(-child.pid!, 'SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { ms, treeMb: treeKb / 1024, gatewayMb: gatewayKb / 1024 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const script of ['start', 'start:prod']) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(script));
  console.log(
    `npm run ${script}: start-up median ${median(runs.map((r) => r.ms)).toFixed(0)} ms ` +
      `(min ${Math.min(...runs.map((r) => r.ms)).toFixed(0)}), RSS gateway ${median(runs.map((r) => r.gatewayMb)).toFixed(0)} MB, ` +
      `whole process tree ${median(runs.map((r) => r.treeMb)).toFixed(0)} MB`,
  );
}
