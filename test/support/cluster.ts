import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_ENV } from './gateway.js';
import type { TestSandbox } from './sandbox.js';
import { gatewayCommand } from './gateway-process.js';

// Cluster tests run real processes: a redis-server of their own (free port, no persistence unless asked, so
// suites never share state and a restart comes back empty) and gateway replicas started with `node --import tsx
// src/main.ts`, pointed at the test's sandbox. Replicas log JSON lines on stdout; the bound URL is read from
// "gateway listening".

const root = fileURLToPath(new URL('../../', import.meta.url));

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * `count` free ports, all different: each is held until the last is found. Taken one after another, a port closed
 * could be handed out again, and two servers of one test then met on it ("already in use").
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export interface TestRedis {
  url: string;
  /** Stops the server (SIGTERM; nothing is saved). */
  stop(): Promise<void>;
  /** Starts it again on the same port: empty, or with what it had when started `persistent`. */
  start(): Promise<void>;
  /**
   * Sends the server a signal: SIGSTOP hangs it with its connections open (nothing answers), SIGCONT wakes it,
   * SIGKILL kills it at once (resolves once it has exited; `start()` brings it back empty).
   */
  signal(signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): Promise<void>;
}

/**
 * A redis-server of the caller's own. `persistent`: an append-only file synced at every write (in a temporary
 * directory), as operators run the Redis holding webhook queues, so a server killed and started again has its data.
 */
export async function startRedis(options: { persistent?: boolean } = {}): Promise<TestRedis> {
  const port = await freePort();
  const persistence = options.persistent
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', mkdtempSync(join(tmpdir(), 'redis-aof-'))]
    : ['--appendonly', 'no'];
  let child: ChildProcess | null = null;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      let out = '';
      proc.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('Ready to accept connections')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    // A paused server only acts on the SIGTERM once it runs again.
    proc.kill('SIGCONT');
    await exited;
  };
  const signal = async (name: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL') => {
    const proc = child as ChildProcess | null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) throw new Error('redis-server is not running');
    if (name !== 'SIGKILL') return void proc.kill(name);
    child = null;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(name);
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}/0`, stop, start, signal };
}

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface Replica {
  url: string;
  child: ChildProcess;
  lines(): LogLine[];
  /** Value of a Prometheus series (summed over labels matching `labels`), 0 when absent. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Every replica process started and not yet exited, so a suite whose set-up timed out still kills them. */
const running = new Set<ChildProcess>();

/** SIGKILLs every replica still running (call in afterAll). */
export async function killReplicas(): Promise<void> {
  await Promise.all(
    [...running].map((child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
}

/** What every replica of a cluster suite is given: the suite's sandbox as upstream, its Redis, and a key prefix of
 * its own (so suites never read each other's keys). Suites add their intervals and limits. */
export function replicaEnv(sandbox: TestSandbox, redis: { url: string }): Record<string, string> {
  return {
    REWARD_API_URL: sandbox.sandbox.baseUrl,
    REWARD_API_TOKEN: sandbox.sandbox.token,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `test-${randomUUID().slice(0, 8)}:`,
  };
}

export async function startReplica(env: Record<string, string>): Promise<Replica> {
  const [command, args] = gatewayCommand();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...TEST_ENV, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  // Parsed as they arrive, each line once: a replica logs a line per operation, and parsing the whole output again
  // on every chunk cost the test process seconds of CPU a suite.
  const parsed: LogLine[] = [];
  let partial = '';
  const lines = () => parsed.slice();
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const text = partial + d;
      const complete = text.split('\n');
      partial = complete.pop()!;
      for (const line of complete) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as LogLine;
        parsed.push(entry);
        if (entry.msg === 'gateway listening') resolve(entry.url as string);
      }
    });
    void exited.then(() => reject(new Error(`replica exited before listening:\n${stdout}\n${stderr}`)));
  });
  return {
    url,
    child,
    lines,
    async metric(name, labels = {}) {
      const text = await (await fetch(`${url}/metrics`)).text();
      let sum = 0;
      for (const line of text.split('\n')) {
        const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
        if (!match || match[1] !== name) continue;
        const labelText = match[2] ?? '';
        if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) sum += Number(match[3]);
      }
      return sum;
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

/**
 * How often a wait probes replicas over HTTP (/metrics, /ready): a /metrics probe costs the replica ~4 ms of CPU
 * to render and the test ~3 ms to fetch and read, four times the cost at eventually()'s 25 ms for nothing a
 * test asserts sooner. Waits on local state (streams, log lines) keep the 25 ms.
 */
export const PROBE_MS = 100;

/**
 * Polls `check` (a cheap local or HTTP probe) until it holds. Unbounded by default (the test's own timeout
 * bounds it); with `within`, fails after that long naming `what` was awaited, so a stuck step says which it was.
 */
export async function eventually<T>(
  check: () => Promise<T | false | null | undefined> | T | false | null | undefined,
  everyMs = 25,
  within?: { ms: number; what: string },
): Promise<T> {
  const deadline = within ? Date.now() + within.ms : Infinity;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${within!.ms} ms waiting for ${within!.what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `promise`, or a failure naming `what` after `ms`: a step that never comes fails as itself, not as the test's timeout. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
