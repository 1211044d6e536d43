import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cluster.js';
import { gatewayCommand } from '../support/gateway-process.js';

// `npm start` as a process: it comes up on the embedded sandbox with nothing configured, serves, writes only
// JSON lines on stdout, and leaves cleanly on SIGTERM (exit 0) or at once on a second signal (exit 1).
// PORT=0 and SANDBOX_PORT=0 keep parallel runs apart; the bound URL is read from the "gateway listening" line.
// One test starts it as an operator's supervisor does, through `npm start`, and signals npm itself.

const root = fileURLToPath(new URL('../../', import.meta.url));
const npmStartScript = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;

/**
 * A directory for the front of PATH whose `node` runs the bundle (gatewayCommand) when called as `npm start`'s
 * script calls it, and is Node itself otherwise (npm included). npm, its script and the process tree stay as
 * they are; only the tsx compile of the sources (~4.5 s of CPU a start) is left out, for the test about what
 * npm does with a signal, where it is not the point. `npm start` through tsx stays under test once, in
 * "`npm start` is the gateway itself".
 */
function bundleAsNpmStartsNode(): string {
  const tsxCall = /^exec node (.+)$/.exec(npmStartScript)?.[1];
  // The script changed its form: say so rather than silently run tsx again.
  if (!tsxCall) throw new Error(`npm start no longer runs "exec node …": ${npmStartScript}`);
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const [command, args] = gatewayCommand();
  const dir = mkdtempSync(join(tmpdir(), 'npm-start-node-'));
  writeFileSync(
    join(dir, 'node'),
    [
      '#!/bin/sh',
      `if [ "$*" = ${quote(tsxCall)} ]; then exec ${[command, ...args].map(quote).join(' ')}; fi`,
      `exec ${quote(process.execPath)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'node'), 0o755);
  return dir;
}

interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

function runMain(env: Record<string, string> = {}, { viaNpm = false, ownGroup = false, nodeFirst = '' } = {}) {
  const [command, args] = viaNpm ? ['npm', ['start']] : gatewayCommand();
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: '0',
      SANDBOX_PORT: '0',
      // Unset (empty means unset): the embedded sandbox is what is under test.
      REWARD_API_URL: '',
      REWARD_API_TOKEN: '',
      ...(nodeFirst ? { PATH: `${nodeFirst}:${process.env.PATH}` } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a shell gives a job: Ctrl-C in a terminal signals the whole group.
    detached: ownGroup,
  });
  let stdout = '';
  let stderr = '';
  const waits: { test: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  const lines = () =>
    stdout
      .split('\n')
      // npm prints the script it runs ("> reward-gateway@… start") before the gateway's own lines.
      .filter((l) => l && !(viaNpm && l.startsWith('>')))
      .map((l) => JSON.parse(l) as LogLine);
  child.stdout.on('data', (d) => {
    stdout += d;
    for (const wait of [...waits]) {
      const found = lines().find(wait.test);
      if (found) {
        waits.splice(waits.indexOf(wait), 1);
        wait.resolve(found);
      }
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  return {
    child,
    exited,
    lines,
    stderr: () => stderr,
    /** The first log line with this message, once written; fails if the process exits first. */
    line(msg: string): Promise<LogLine> {
      return new Promise((resolve, reject) => {
        const found = stdout ? lines().find((l) => l.msg === msg) : undefined;
        if (found) return resolve(found);
        waits.push({ test: (l) => l.msg === msg, resolve });
        void exited.then(() => reject(new Error(`exited before "${msg}": ${stdout}\n${stderr}`)));
      });
    },
  };
}

async function gql(url: string, query: string) {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return (await res.json()) as { data?: any; errors?: unknown[] };
}

// Each test starts Node + tsx; on a shared 2-core machine that alone can take tens of seconds, so the budget
// is generous and the tests wait on log lines, never on the clock.
/**
 * A `{ funds }` query the sandbox holds `latencyMs`, returned once the sandbox has its request (wrapped, so the
 * caller awaits the answer when it chooses).
 */
async function slowFunds(controlUrl: string, url: string, latencyMs: number): Promise<{ answer: Promise<unknown> }> {
  const control = (path: string, body?: unknown) =>
    fetch(`${controlUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then((r) => r.json() as Promise<any>);
  await control('faults', { route: 'GET /funds', latency_ms: latencyMs, rate: 1 });
  const answer = gql(url, '{ funds { balances { currency } } }');
  // Not back to back: each look is a request the gateway's process answers, on a machine the suites share.
  await eventually(async () => (await control('stats')).requests['GET /funds'], 10);
  return { answer };
}

describe.concurrent('npm start (src/main.ts)', { timeout: 90_000 }, () => {
  let bundleFirst = '';
  beforeAll(() => {
    bundleFirst = bundleAsNpmStartsNode();
  });
  afterAll(() => rmSync(bundleFirst, { recursive: true, force: true }));

  it('serves on the embedded sandbox and exits 0 on SIGTERM with a clean log', async () => {
    const run = runMain();
    try {
      const { url } = (await run.line('gateway listening')) as LogLine & { url: string };
      expect(await gql(url, '{ viewer { username } funds { balances { currency } } }')).toMatchObject({
        data: { viewer: { username: expect.any(String) }, funds: { balances: expect.any(Array) } },
      });
      expect(await (await fetch(`${url}/metrics`)).text()).toContain(
        'reward_gateway_graphql_operations_total{operation_name="anonymous",operation_type="query",outcome="ok"} 1',
      );

      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      const lines = run.lines();
      const story = [
        'no REWARD_API_URL set: using the embedded sandbox',
        'gateway listening',
        'operation completed',
        'shutting down: draining, then waiting for in-flight operations',
        'stopped',
      ];
      expect(lines.map((l) => l.msg).filter((msg) => story.includes(msg))).toEqual(story);
      expect(lines.find((l) => l.msg.startsWith('shutting down'))).toMatchObject({ signal: 'SIGTERM', deadlineMs: 10_000 });
      expect(lines.at(-1)?.msg).toBe('stopped');
      expect(lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
      // The newcomer's welcome is on stderr, and nothing else is.
      expect(run.stderr()).toContain(`reward-gateway is listening on ${url}/graphql`);
      expect(run.stderr()).not.toMatch(/error/i);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('wakes for nothing once idle: no loop or sampler runs while there is nothing to do', async () => {
    const run = runMain();
    try {
      const { url, pid } = (await run.line('gateway listening')) as LogLine & { url: string; pid: number };
      // An operation and a scrape start what work starts (the upstream pool's sockets, the delay sampling): all
      // of it has to wind down by itself.
      expect(await gql(url, '{ funds { balances { currency } } }')).toMatchObject({ data: { funds: { balances: expect.any(Array) } } });
      expect((await fetch(`${url}/metrics`)).status).toBe(200);
      // How often the main thread went to sleep waiting: every timer that fires wakes it once.
      const wakeUps = () => Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))![1]);
      // A quiet window of 2 s: the delay histogram alone used to wake it ten times a second, the lease
      // renewals and the WebSocket keep-alive every few seconds with nothing to renew or ping.
      await eventually(
        async () => {
          const before = wakeUps();
          await sleep(2_000);
          return wakeUps() - before <= 1;
        },
        0,
        { ms: 30_000, what: 'an idle window of 2 s in which the gateway woke at most once' },
      );
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('`npm start` is the gateway itself: SIGTERM to npm drains it, closes its port and exits 0', async () => {
    const run = runMain({}, { viaNpm: true });
    try {
      const { url, pid } = (await run.line('gateway listening')) as LogLine & { url: string; pid: number };
      expect(await gql(url, '{ viewer { username } }')).toMatchObject({ data: { viewer: { username: expect.any(String) } } });

      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(run.lines().map((l) => l.msg)).toContain('stopped');
      // Nothing left behind: no orphaned gateway process, nothing listening on its port.
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('Ctrl-C on `npm start` in a terminal drains and exits 0: npm forwarding the same SIGINT is not a second one', async () => {
    const run = runMain({}, { viaNpm: true, ownGroup: true, nodeFirst: bundleFirst });
    try {
      const { controlUrl } = (await run.line('no REWARD_API_URL set: using the embedded sandbox')) as LogLine & { controlUrl: string };
      const { url, pid } = (await run.line('gateway listening')) as LogLine & { url: string; pid: number };
      // An operation in flight, so the drain has something to wait for.
      const slow = (await slowFunds(controlUrl, url, 1_500)).answer;

      // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group, npm and the gateway.
      process.kill(-run.child.pid!, 'SIGINT');
      // npm forwards the SIGINT it got to the gateway. Arriving before the gateway has handled the first, the
      // two are one pending signal; arriving after, it is a second one. Sent here after the first is handled,
      // so the test does not depend on that race.
      await run.line('shutting down: draining, then waiting for in-flight operations');
      process.kill(pid, 'SIGINT');
      expect(await run.exited).toBe(0);
      expect(await slow).toMatchObject({ data: { funds: { balances: expect.any(Array) } } });
      const messages = run.lines().map((l) => l.msg);
      expect(messages).toContain('stopped');
      expect(messages).not.toContain('second signal: exiting now without waiting for in-flight operations');
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    } finally {
      try {
        process.kill(-run.child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }
  });

  it('exits at once with 1 on a second signal while an operation is still in flight', async () => {
    const run = runMain();
    try {
      const { controlUrl } = (await run.line('no REWARD_API_URL set: using the embedded sandbox')) as LogLine & { controlUrl: string };
      const { url } = (await run.line('gateway listening')) as LogLine & { url: string };
      const slow = (await slowFunds(controlUrl, url, 30_000)).answer.catch((error: unknown) => error);

      run.child.kill('SIGTERM');
      await run.line('shutting down: draining, then waiting for in-flight operations');
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(1);
      expect(run.lines().at(-1)).toMatchObject({
        level: 'warn',
        msg: 'second signal: exiting now without waiting for in-flight operations',
        signal: 'SIGINT',
      });
      expect(await slow).toBeInstanceOf(Error);
    } finally {
      run.child.kill('SIGKILL');
    }
  });
});
