import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

// The two processes under test, each started the way an operator would: the sandbox through its own entry
// (`npm run sandbox`), the gateway through `src/main.ts` pointed at it. Both run TypeScript through tsx's
// loader inside one node process (`node --import tsx`), so the pid we hold is the process we measure.

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Start-up through tsx takes 20 s and more when the machine is shared; only a hung start takes this long. */
export const START_TIMEOUT_MS = 120_000;

export interface Child {
  pid: number;
  /** stdout and stderr lines, for the log file and the error count. */
  lines: string[];
  stop(): Promise<void>;
}

export function launch(
  entry: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  /** False for JavaScript entries (the compiled gateway, the peers): plain node, no TypeScript loader. */
  tsx = true,
): { child: ChildProcess; lines: string[]; waitFor(pattern: RegExp, what: string): Promise<RegExpMatchArray> } {
  const child = spawn(process.execPath, [...nodeArgs, ...(tsx ? ['--import', 'tsx'] : []), entry], {
    cwd: ROOT,
    // Only what node and tsx need from our environment: nothing of the caller's gateway or upstream settings.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve(match: RegExpMatchArray): void }[] = [];
  const onLine = (line: string) => {
    if (!line.trim()) return;
    lines.push(line);
    for (const waiter of [...waiters]) {
      const match = line.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  // Whole lines, each stream on its own: a chunk may end mid-line (a --trace-gc-nvp line cut in two was read as two).
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const waitFor = (pattern: RegExp, what: string) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${entry}: no ${what} within ${START_TIMEOUT_MS / 1000} s\n${lines.join('\n')}`)),
        START_TIMEOUT_MS,
      );
      child.once('exit', (code) => reject(new Error(`${entry} exited (${code}) before ${what}\n${lines.join('\n')}`)));
      waiters.push({ pattern, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  return { child, lines, waitFor };
}

/** SIGTERM (both entries shut down gracefully, which also writes a --cpu-prof profile), SIGKILL after 15 s. */
export function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => (clearTimeout(kill), resolve()));
      child.kill('SIGTERM');
    });
}

export interface SandboxProcess extends Child {
  origin: string;
  baseUrl: string;
  token: string;
}

export async function startSandboxProcess(options: { latencyMs: number; token: string; balanceCents: number }): Promise<SandboxProcess> {
  const { child, lines, waitFor } = launch('src/sandbox/main.ts', {
    SANDBOX_PORT: '0',
    SANDBOX_HOST: '127.0.0.1',
    SANDBOX_TOKEN: options.token,
    SANDBOX_LATENCY_MS: String(options.latencyMs),
    SANDBOX_BALANCE_CENTS: String(options.balanceCents),
  });
  const [, baseUrl] = await waitFor(/base URL:\s+(\S+)/, 'base URL');
  return { pid: child.pid!, lines, origin: new URL(baseUrl!).origin, baseUrl: baseUrl!, token: options.token, stop: stopper(child) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface GatewayProcess extends Child {
  url: string;
  /** The environment it was started with (for the report). */
  env: Record<string, string>;
  /** The gateway's inspector (loopback, ephemeral port), for GCs and ad-hoc heap profiling. */
  inspectorUrl: string;
  /** Forces a full garbage collection through the inspector, so heap figures are live objects, not garbage. */
  gc(): Promise<void>;
  /** Resident set, used heap and CPU seconds from its /metrics (RSS falls back to /proc). */
  memory(): Promise<{ rssBytes: number; heapUsedBytes: number | null }>;
  metrics(): Promise<string>;
}

export async function startGatewayProcess(options: {
  upstream: SandboxProcess;
  pollIntervalMs: number;
  cpuProfDir: string | null;
  /** Settings a scenario needs on top of these (e.g. API keys and a real rate limit). */
  env?: Record<string, string>;
  /** A compiled entry (plain node) instead of src/main.ts through tsx, whose keepNames output costs heap per closure. */
  compiledEntry?: string;
}): Promise<GatewayProcess> {
  const port = await freePort();
  const env = {
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    REWARD_API_URL: options.upstream.baseUrl,
    REWARD_API_TOKEN: options.upstream.token,
    // The load generator is one caller; the per-key limiter is not what we measure.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    // Likewise its subscriptions and sockets: thousands of subscribers, all under the one development key.
    LIVE_MAX_SUBSCRIPTIONS_PER_KEY: '1000000',
    WS_MAX_CONNECTIONS_PER_KEY: '1000000',
    POLL_INTERVAL_MS: String(options.pollIntervalMs),
    POLL_INTERVAL_FLOOR_MS: String(Math.min(options.pollIntervalMs, 1_000)),
    LOG_LEVEL: 'warn',
    GRAPHIQL: 'false',
    // These scenarios measure what each query costs the gateway and the upstream; the read cache would answer
    // their repeated queries itself. The `dashboard` scenario measures the cache.
    CACHE_TTL_MS: '0',
    ...options.env,
  };
  // The inspector listens on an ephemeral loopback port only so the bench can ask for a GC before reading heap.
  const nodeArgs = ['--inspect=127.0.0.1:0'];
  if (options.cpuProfDir) {
    mkdirSync(options.cpuProfDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`);
  }
  const { child, lines, waitFor } = launch(options.compiledEntry ?? 'src/main.ts', env, nodeArgs, !options.compiledEntry);
  const [, inspectorUrl] = await waitFor(/Debugger listening on (ws:\/\/\S+)/, 'inspector URL');
  const url = `http://127.0.0.1:${port}`;
  await waitUntilHealthy(url, child);

  const metrics = async () => (await fetch(`${url}/metrics`)).text();
  return {
    pid: child.pid!,
    lines,
    url,
    env,
    stop: stopper(child),
    inspectorUrl: inspectorUrl!,
    metrics,
    gc: () => collectGarbage(inspectorUrl!),
    async memory() {
      const text = await metrics();
      const rss = metricValue(text, 'process_resident_memory_bytes') ?? rssFromProc(child.pid!);
      return { rssBytes: rss, heapUsedBytes: metricValue(text, 'nodejs_heap_size_used_bytes') };
    },
  };
}

export async function waitUntilHealthy(url: string, child: ChildProcess, lines: string[] = []): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}\n${lines.slice(-20).join('\n')}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gateway not healthy within ${START_TIMEOUT_MS / 1000} s`);
}

function collectGarbage(inspectorUrl: string): Promise<void> {
  return inspectorCall(inspectorUrl, 'HeapProfiler.collectGarbage').then(() => undefined);
}

/** One DevTools protocol call on a process's inspector (loopback), answered with its result. */
export function inspectorCall(inspectorUrl: string, method: string, params: object = {}): Promise<any> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(inspectorUrl);
    const timer = setTimeout(() => (socket.terminate(), reject(new Error(`inspector ${method} timed out`))), 10_000);
    socket.once('open', () => socket.send(JSON.stringify({ id: 1, method, params })));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
      if (message.id !== 1) return;
      clearTimeout(timer);
      socket.close();
      resolve(message.result);
    });
    socket.once('error', (error) => (clearTimeout(timer), reject(error)));
  });
}

/** One sample of a Prometheus text exposition: `name` alone, or `name{labels}` exactly as exposed. */
export function metricValue(text: string, series: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1).split(' ')[0]);
  }
  return null;
}

/** The sum of every series of a metric (all label sets). */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(name + ' ') || line.startsWith(name + '{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export function rssFromProc(pid: number): number {
  return statusKb(pid, 'VmRSS') * 1024;
}

/** The most RSS since start-up, or since the last resetPeakRss(pid). */
export function peakRssFromProc(pid: number): number {
  return statusKb(pid, 'VmHWM') * 1024;
}

/** Starts peakRssFromProc(pid) over from the RSS of the moment (Linux's clear_refs); false where the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** A field of /proc/<pid>/status in kB; NaN when it is missing, so a figure never reads 0 MB for nothing. */
function statusKb(pid: number, field: string): number {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
}

/**
 * Milliseconds on a CPU from the scheduler (/proc/…/schedstat: exact, where /proc/…/stat counts 10 ms ticks,
 * which for a process waking briefly is noise): all threads, and the main (JavaScript) thread alone (GC and
 * compiler helpers run on the others).
 */
export function runtimeMs(pid: number): { all: number; main: number } {
  const of = (tid: string) => Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  let all = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      all += of(tid);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return { all, main: of(String(pid)) };
}

/** User + system CPU seconds a process has used so far, from /proc (Linux clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start at the state, field 3; utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
