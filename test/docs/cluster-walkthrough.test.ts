import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePorts } from '../support/cluster.js';
import { npmStartAsBundle } from '../support/gateway-process.js';

// docs/cluster.md's "Three replicas locally", run as a reader runs it: every block fenced `sh cluster-walkthrough`
// is sourced, in order, into one bash (so its variables, functions and background jobs carry over, as in the
// reader's terminal), with every port number of the doc replaced by a free one (Redis included: the doc's own
// redis-server line starts the test's Redis). After each block the test checks what the doc says it shows: the
// replicas ready, both streams handed the first redemption once, the leader's gateway process gone after the
// doc's `kill -9` (not only npm), the takeover logged, the second redemption on the surviving stream, and nothing
// of the shell's left running after the doc's last step. Whatever is left is killed with the process group.

const root = fileURLToPath(new URL('../../', import.meta.url));
const DOC = 'docs/cluster.md';
const FLAG = 'cluster-walkthrough';

function walkthroughBlocks(): { line: number; text: string }[] {
  const text = readFileSync(join(root, DOC), 'utf8');
  return [...text.matchAll(/^```(\w+)[ \t]+([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)].flatMap((m) =>
    m[2]!.trim().split(/\s+/).includes(FLAG) ? [{ line: text.slice(0, m.index).split('\n').length, text: m[3]! }] : [],
  );
}

/** The doc's ports: Redis, the sandbox, the three replicas. Every whole-word occurrence is one (loops name them bare). */
const DOC_PORTS = [6390, 4010, 4001, 4002, 4003];
const PORT = new RegExp(`\\b(${DOC_PORTS.join('|')})\\b`, 'g');

const ports = new Map<number, number>();
const port = (docPort: number) => ports.get(docPort)!;

/** The shell's process group: it leads it, and everything the blocks start stays in it (no job control). */
let shellPid: number | undefined;

/** Pids in the shell's process group other than the shell itself. */
function groupMembers(): number[] {
  const { stdout } = spawnSync('pgrep', ['-g', String(shellPid)], { encoding: 'utf8' });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== shellPid);
}

/** The group's processes other than the shell, as ps shows them, for a failure to name. */
const left = () => spawnSync('ps', ['-o', 'pid,args', '-p', groupMembers().join(',') || '0'], { encoding: 'utf8' }).stdout;

afterAll(async () => {
  if (shellPid === undefined) return;
  const alive = () => spawnSync('pgrep', ['-g', String(shellPid)]).status === 0;
  if (!alive()) return;
  process.kill(-shellPid, 'SIGTERM');
  await eventually(() => !alive(), 50, { ms: 15_000, what: 'the walkthrough shell group to stop' }).catch(() => {
    if (alive()) process.kill(-shellPid!, 'SIGKILL');
  });
});

const answers = (url: string) =>
  fetch(url).then(
    () => true,
    () => false,
  );

interface StreamEvent {
  uuid: string;
  status: string;
}

/** The `data:` lines of SSE in the shell's output, by the alias that names the replica. */
function streamEvents(stdout: string, alias: string): StreamEvent[] {
  return [...stdout.matchAll(/^data: (\{.*\})$/gm)].flatMap((m) => {
    const data = (JSON.parse(m[1]!) as { data?: Record<string, { gift: StreamEvent }> }).data;
    return data?.[alias] ? [data[alias].gift] : [];
  });
}

describe(`${DOC}: three replicas locally`, () => {
  it('runs as written, in one shell: a redemption on both streams once, a takeover after kill -9, nothing left running', async () => {
    const blocks = walkthroughBlocks();
    // The steps below check each block's own outcome, by its place: a block added or removed changes them.
    expect(blocks, `blocks fenced sh ${FLAG} in ${DOC}`).toHaveLength(7);
    const free = await freePorts(DOC_PORTS.length);
    DOC_PORTS.forEach((docPort, i) => ports.set(docPort, free[i]!));

    const dir = mkdtempSync(join(tmpdir(), 'cluster-walkthrough-'));
    // A clean environment, as a new terminal has: nothing of vitest's or of a test gateway's settings. TMPDIR puts
    // the doc's `mktemp -d` (its processes' logs) in the test's directory, so a failure shows them.
    const shell = spawn('bash', [], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        TMPDIR: dir,
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
      },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    shellPid = shell.pid!;
    let stdout = '';
    let stderr = '';
    shell.stdout!.on('data', (d: Buffer) => (stdout += d));
    shell.stderr!.on('data', (d: Buffer) => (stderr += d));
    let exit: number | null | undefined;
    shell.once('exit', (code) => (exit = code));
    const logs = () =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile() && f.name.endsWith('.log'))
        .map((f) => `${f.name}:\n${readFileSync(join(f.parentPath, f.name), 'utf8')}`)
        .join('\n');
    const transcript = () => `stdout:\n${stdout}\nstderr:\n${stderr}\n${logs()}`;
    // A command that fails stops the shell, and so the test at once, with what it printed.
    shell.stdin!.write('set -eo pipefail\n');
    // The replicas' `npm start` runs the bundle of the same sources, `npm run sandbox` runs its tsx script without npm
    // (test/support/gateway-process.ts says why).
    shell.stdin!.write(`${npmStartAsBundle()}\n`);

    /** Waits for `check`; a failure shows what the shell and the processes it started printed. */
    const seen = (what: string, check: () => boolean, ms = 60_000) =>
      eventually(check, 50, { ms, what }).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\n${transcript()}`);
      });

    /** Sources block `i` (its ports rewritten) and waits for it to finish; returns what it printed. */
    const run = async (i: number) => {
      const block = blocks[i]!;
      const file = join(dir, `block-${i}.sh`);
      writeFileSync(
        file,
        block.text.replace(PORT, (p) => String(port(Number(p)))),
      );
      const done = `walkthrough: block ${i} done`;
      const from = stdout.length;
      shell.stdin!.write(`source ${file}; echo '${done}'\n`);
      await seen(
        `the block at line ${block.line} to finish`,
        () => {
          if (exit !== undefined) throw new Error(`the shell exited (${exit}) in the block at line ${block.line}`);
          return stdout.includes(done, from);
        },
        120_000,
      );
      return stdout.slice(from);
    };

    try {
      // Start: Redis, the sandbox, three replicas, each ready with Redis up.
      expect((await run(0)).match(/\{"status":"ready","redis":"up"/g)).toHaveLength(3);

      // An order with two rewards.
      const [, first, second] = /^rewards: (\S+) (\S+)$/m.exec(await run(1)) ?? [];
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      expect(second).toMatch(/^[0-9a-f-]{36}$/);

      // Two streams, each accepted (its replica counts it) and handed the rewards as they are.
      expect((await run(2)).match(/^reward_gateway_live_subscribers 1$/gm)).toHaveLength(2);
      for (const alias of ['on4002', 'on4003']) {
        await seen(`${alias} to show both rewards`, () => streamEvents(stdout, alias).filter((e) => e.status === 'SENT_AND_REDEEMABLE').length === 2);
      }

      // The first redemption reaches both streams.
      await run(3);
      for (const alias of ['on4002', 'on4003']) {
        await seen(`${alias} to show the first redemption`, () =>
          streamEvents(stdout, alias).some((e) => e.uuid === first && e.status === 'REDEEMED'),
        );
      }

      // kill -9 of the leader's own process: its port stops answering (killing npm alone left the gateway serving).
      const [, leader, pid] = /^replica (\d+) \(pid (\d+)\) polls the order$/m.exec(await run(4)) ?? [];
      expect([port(4002), port(4003)]).toContain(Number(leader));
      expect(Number(pid)).toBeGreaterThan(0);
      await eventually(async () => !(await answers(`http://127.0.0.1:${leader}/health`)), 50, {
        ms: 10_000,
        what: `replica ${leader} to stop answering`,
      });
      const survivor = Number(leader) === port(4002) ? 'on4003' : 'on4002';

      // The survivor takes over and hands the second redemption; its stream then ends (both rewards final).
      expect(await run(5)).toMatch(/"msg":"live: took over a key whose poller vanished"/);
      await seen(`${survivor} to show the second redemption`, () =>
        streamEvents(stdout, survivor).some((e) => e.uuid === second && e.status === 'REDEEMED'),
      );
      await seen('the surviving stream to complete', () => /^event: complete$/m.test(stdout));

      // Exactly once, on each stream: the first redemption on both, the second on the survivor.
      for (const alias of ['on4002', 'on4003']) {
        expect(streamEvents(stdout, alias).filter((e) => e.uuid === first && e.status === 'REDEEMED')).toHaveLength(1);
      }
      expect(streamEvents(stdout, survivor).filter((e) => e.uuid === second && e.status === 'REDEEMED')).toHaveLength(1);

      // The doc's last step stops everything the shell started: no process left in its group, no port answering.
      await run(6);
      await eventually(() => groupMembers().length === 0, 100, { ms: 30_000, what: 'every process the walkthrough started to exit' }).catch(
        (error: unknown) => {
          throw new Error(`${(error as Error).message}; left:\n${left()}\n${transcript()}`);
        },
      );
      for (const docPort of [4010, 4001, 4002, 4003])
        expect(await answers(`http://127.0.0.1:${port(docPort)}/health`), `port ${docPort}`).toBe(false);
    } finally {
      shell.stdin!.end();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 400_000);
});
