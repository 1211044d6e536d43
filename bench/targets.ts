import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort, launch, ROOT, rssFromProc, START_TIMEOUT_MS, stopper, waitUntilHealthy, type Child, type SandboxProcess } from './processes.js';
import { FUNDS } from './scenarios/overhead.js';

// The servers the comparison measures side by side, each in its own process against the same sandbox: the
// gateway started the way production starts it (NODE_ENV=production, an API key), once through tsx and once
// compiled to JavaScript, and the three peers of bench/peers/ (plain JavaScript on plain node).

export type TargetName = 'gateway-tsx' | 'gateway-compiled' | 'gateway-baseline' | 'apollo' | 'yoga' | 'yoga-jit';
export type PeerName = 'apollo' | 'yoga' | 'yoga-jit';
export const PEERS: readonly PeerName[] = ['apollo', 'yoga', 'yoga-jit'];

export const TARGET_LABELS: Record<TargetName, string> = {
  'gateway-tsx': 'reward-gateway (tsx)',
  'gateway-compiled': 'reward-gateway (compiled)',
  'gateway-baseline': 'reward-gateway (baseline)',
  apollo: 'Apollo + RESTDataSource',
  yoga: 'yoga, undici pool',
  'yoga-jit': 'yoga + graphql-jit',
};

export interface Target extends Child {
  name: TargetName;
  url: string;
  /** Resident set a few seconds after the server was up (`/health`, or a peer's listening line), before any query. */
  idleRssBytes: number;
  /** Started with `first-answer`: from spawning the process to its first complete answer to `{ funds }`. */
  firstAnswerMs: number | null;
}

/**
 * How a start ends: `idle` waits until the server is up, lets it settle and reads its idle resident set before
 * any query (issue 17's definition); `first-answer` asks `{ funds }` from the moment of spawning and returns with
 * the time its first complete answer took (a start of its own: the query would change the idle figure).
 */
export type StartMode = 'idle' | 'first-answer';

/** The key the production gateway is started with; sent by every request of the comparison (peers ignore it). */
export const BENCH_KEY = `gwk_bench_${randomBytes(16).toString('hex')}`;
export const AUTH_HEADERS = { authorization: `Bearer ${BENCH_KEY}` };

/** Let start-up garbage settle before reading the idle resident set. */
const IDLE_SETTLE_MS = 3_000;

/**
 * The compiled gateway's entry: BENCH_COMPILED_ENTRY, else what `npm run build` produced (dist/main.js or
 * dist/src/main.js; the build is run first when package.json has one), else a tsc build of src/ into
 * bench/results/compiled/ (bench/tsconfig.compiled.json). Null when none can be had.
 */
export function compiledEntry(override: string | undefined, log: (m: string) => void): string | null {
  if (override) return override;
  // Built once per run: the comparison, the dashboard and the shield scenarios all start it.
  if (builtEntry === undefined) builtEntry = buildEntry(log);
  return builtEntry;
}

let builtEntry: string | null | undefined;

function buildEntry(log: (m: string) => void): string | null {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  try {
    if (scripts.build) {
      log('compiled gateway: npm run build');
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
      for (const entry of ['dist/main.js', 'dist/src/main.js']) if (existsSync(join(ROOT, entry))) return entry;
      log('compiled gateway: npm run build left no dist/main.js or dist/src/main.js');
      return null;
    }
    const out = join(ROOT, 'bench/results/compiled/main.js');
    if (existsSync(out) && statSync(out).mtimeMs > newestSource(join(ROOT, 'src'))) return 'bench/results/compiled/main.js';
    log('compiled gateway: no build script, compiling src/ with tsc into bench/results/compiled/');
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'bench/tsconfig.compiled.json'], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    return 'bench/results/compiled/main.js';
  } catch (error) {
    log(`compiled gateway: build failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); measuring without it`);
    return null;
  }
}

/**
 * The node flags `npm run start:prod` passes (`[exec] node <flags> dist/main.js`), so the compiled gateway is
 * measured as production starts it; none when there is no such script.
 */
export function productionNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  return nodeFlagsOf(scripts['start:prod']);
}

/** The `--` flags of a script that runs node, optionally through the shell's `exec`; none for anything else. */
export function nodeFlagsOf(script: string | undefined): string[] {
  const words = script?.trim().split(/\s+/) ?? [];
  // `exec node …` (one process, so a signal to npm reaches the gateway) passes node the same flags.
  if (words[0] === 'exec') words.shift();
  return words[0] === 'node' ? words.slice(1).filter((w) => w.startsWith('--')) : [];
}

/** The latest modification time of any file below `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

async function settle(child: Child, name: TargetName, url: string): Promise<Target> {
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  return { ...child, name, url, idleRssBytes: rssFromProc(child.pid), firstAnswerMs: null };
}

/**
 * Milliseconds from `spawnedAt` to the first 200 with `{ funds }` data, asking every 5 ms (connections refused
 * until the server listens): what an operator waits for after a start or a restart.
 */
async function firstAnswer(url: string, child: ChildProcess, lines: string[], spawnedAt: number): Promise<number> {
  const deadline = spawnedAt + START_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: exited with ${child.exitCode}\n${lines.slice(-20).join('\n')}`);
    try {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...AUTH_HEADERS },
        body: JSON.stringify({ query: FUNDS }),
      });
      const body = (await res.json()) as { data?: { funds?: unknown } };
      if (res.status === 200 && body.data?.funds) return Math.round(performance.now() - spawnedAt);
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${url}: no answer within ${START_TIMEOUT_MS / 1000} s\n${lines.slice(-20).join('\n')}`);
}

export async function startGatewayTarget(
  name: 'gateway-tsx' | 'gateway-compiled' | 'gateway-baseline',
  entry: string,
  upstream: SandboxProcess,
  nodeArgs: string[] = [],
  /** On top of the defaults below, e.g. the read cache for the `dashboard` scenario. */
  extraEnv: Record<string, string> = {},
  mode: StartMode = 'idle',
): Promise<Target> {
  const port = await freePort();
  const env = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    REWARD_API_URL: upstream.baseUrl,
    REWARD_API_TOKEN: upstream.token,
    GATEWAY_API_KEYS: JSON.stringify([{ name: 'bench', key: BENCH_KEY, scopes: ['rewards:read', 'funds:read'] }]),
    // The load generator is one caller; the per-key limiter is not what we measure.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    LOG_LEVEL: 'warn',
    // The comparison is of what one query costs, the same upstream requests for every target: no read cache
    // (the `dashboard` scenario measures it against the peers).
    CACHE_TTL_MS: '0',
    ...extraEnv,
  };
  const spawnedAt = performance.now();
  const { child, lines } = launch(entry, env, nodeArgs, name === 'gateway-tsx');
  const url = `http://127.0.0.1:${port}`;
  const started = { pid: child.pid!, lines, stop: stopper(child) };
  if (mode === 'first-answer') return { ...started, name, url, idleRssBytes: NaN, firstAnswerMs: await firstAnswer(url, child, lines, spawnedAt) };
  await waitUntilHealthy(url, child, lines);
  return settle(started, name, url);
}

export async function startPeer(name: PeerName, upstream: SandboxProcess, mode: StartMode = 'idle', nodeArgs: string[] = []): Promise<Target> {
  const spawnedAt = performance.now();
  const { child, lines, waitFor } = launch(
    `bench/peers/${name}.mjs`,
    { NODE_ENV: 'production', PEER_PORT: '0', REWARD_API_URL: upstream.baseUrl, REWARD_API_TOKEN: upstream.token },
    nodeArgs,
    false,
  );
  const [, port] = await waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 'listening line');
  const url = `http://127.0.0.1:${port}`;
  const started = { pid: child.pid!, lines, stop: stopper(child) };
  if (mode === 'first-answer') return { ...started, name, url, idleRssBytes: NaN, firstAnswerMs: await firstAnswer(url, child, lines, spawnedAt) };
  return settle(started, name, url);
}
