import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually, freePorts, within } from '../support/cluster.js';
import { gatewayCommand, npmStartAsBundle } from '../support/gateway-process.js';

// Docs that cannot rot (docs/development.md, "Runnable blocks"): every fenced command block of the README and
// docs/ (sh and graphql) either runs here, in order, against a fresh gateway started as `npm start` starts it,
// or says in its fence why it cannot (`skip:<reason>`, or `cluster-walkthrough`: docs/cluster.md's own test
// runs those), and is listed as skipped by name. A block's `npm start` runs the bundle of the same sources, and its
// `npx tsx <file>` runs `node --import tsx <file>` (npmStartAsBundle in test/support/gateway-process.ts), as the
// gateway started for the doc does. A block
// followed by an `output` block must print what that block shows, compared loosely: whitespace is ignored and
// `…` stands for anything.

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = ['README.md', ...readdirSync(join(root, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : []))];

/** Languages whose blocks are commands a reader pastes: each must run here or say why not. */
const COMMANDS = new Set(['sh', 'bash', 'graphql']);
/** Languages that may be marked runnable (snippets a reader saves to a file and runs with tsx). */
const RUNNABLE = new Set([...COMMANDS, 'ts']);

interface Block {
  doc: string;
  lang: string;
  flags: string[];
  /** 1-based line of the opening fence, to name the block. */
  line: number;
  text: string;
  /** What the doc says the block prints: the `output` block that follows it, if any. */
  shows?: string;
}

const has = (block: Block, flag: string) => block.flags.includes(flag);
const skipReason = (block: Block) =>
  has(block, 'cluster-walkthrough') ? 'run by the docs/cluster.md walkthrough test' : block.flags.find((f) => f.startsWith('skip:'))?.slice(5);
const name = (block: Block) => `${block.doc}:${block.line} (${block.lang})`;

function blocksOf(doc: string): Block[] {
  const text = readFileSync(join(root, doc), 'utf8');
  const blocks: Block[] = [];
  let last: Block | undefined;
  for (const m of text.matchAll(/^```(\w*)[ \t]*([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    const block = {
      doc,
      lang: m[1]!,
      flags: m[2]!.trim().split(/\s+/).filter(Boolean),
      line: text.slice(0, m.index).split('\n').length,
      text: m[3]!,
    };
    if (has(block, 'output')) {
      if (!last || last.shows !== undefined) throw new Error(`${name(block)}: an output block follows no runnable block`);
      last.shows = block.text;
      continue;
    }
    blocks.push(block);
    last = has(block, 'runnable') ? block : undefined;
  }
  return blocks;
}

const all = docs.flatMap(blocksOf);
const runnable = all.filter((block) => has(block, 'runnable'));
const skipped = all.filter((block) => COMMANDS.has(block.lang) && !has(block, 'runnable'));

/** Whether `stdout` shows what the doc says: whitespace ignored, each `…` standing for anything. */
function shows(stdout: string, expected: string): boolean {
  const squeeze = (s: string) => s.replace(/\s+/g, '');
  const actual = squeeze(stdout);
  let at = 0;
  for (const part of squeeze(expected).split('…')) {
    const found = actual.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * Whether a block printed what the doc shows. A background block's events may arrive in any order within one poll
 * (a reader pasting slowly sees them in step order; a test does not wait), so its output's parts, between lines
 * holding only `…`, may come in any order.
 */
function printed(block: Block, stdout: string): boolean {
  if (block.shows === undefined) return true;
  if (!has(block, 'background')) return shows(stdout, block.shows);
  return block.shows.split(/^…$/m).every((part) => shows(stdout, part));
}

function expectShows(block: Block, stdout: string) {
  expect(printed(block, stdout), `${name(block)} printed:\n${stdout}\nbut the doc shows:\n${block.shows}`).toBe(true);
}

/** The documented default ports, each rewritten where it follows `:`, `=` or `--port `. */
const DEFAULT_PORTS = [4000, 4001, 4002, 4003, 4010, 4020, 4030, 6390];
const PORT_AT = new RegExp(`(?<=:|=|--port )(${DEFAULT_PORTS.join('|')})\\b`, 'g');
const withPorts = (text: string, ports: Map<number, number>) => text.replace(PORT_AT, (port) => String(ports.get(Number(port))));

/**
 * A clean environment: nothing of vitest's leaks into what a block starts. PORT and SANDBOX_PORT are the free
 * ones, so an `npm start` a block runs listens where the rewritten URLs point.
 */
const shellEnv = (ports: Map<number, number>) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  PORT: String(ports.get(4000)),
  SANDBOX_PORT: String(ports.get(4010)),
  // One poll a second (the floor) rather than five, so the subscription steps see their events sooner.
  POLL_INTERVAL_MS: '1000',
  LOG_LEVEL: 'warn',
});

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid!;
  if (groupAlive(pid)) {
    process.kill(-pid, 'SIGTERM');
    await eventually(() => !groupAlive(pid), 50, { ms: 15_000, what: `process group ${pid} to stop` }).catch(() => {
      if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    });
  }
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Starts `command` as the leader of a process group of its own, added to `groups` for the doc's run to stop whole. */
function startGroup(groups: ChildProcess[], command: string, args: string[], env: Record<string, string>, stdin: 'ignore' | 'pipe' = 'ignore') {
  const child = spawn(command, args, { cwd: root, env, detached: true, stdio: [stdin, 'pipe', 'pipe'] });
  groups.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve((exitCode = code))));
  return { child, output, exited, gone: () => exitCode !== undefined };
}

async function gatewayAnswers(ports: Map<number, number>, gone: () => boolean, stderr: () => string): Promise<void> {
  await eventually(
    async () => {
      if (gone()) throw new Error(`the gateway exited:\n${stderr()}`);
      return fetch(`http://127.0.0.1:${ports.get(4000)}/health`)
        .then((res) => res.ok)
        .catch(() => false);
    },
    100,
    { ms: 45_000, what: 'the gateway to answer /health' },
  );
}

/** The index of the first block after `from` that is not a `ts` snippet (or the end). */
function nextOther(blocks: Block[], from: number): number {
  const next = blocks.findIndex((block, i) => i > from && block.lang !== 'ts');
  return next < 0 ? blocks.length : next;
}

/**
 * Consecutive snippets, each saved to a file of its own and run with tsx (`node --import tsx`, as `npx tsx <file>`
 * runs it), in one process: a runner imports them in turn and prints a marker after each, so each one's output is
 * told apart. One tsx start for them all: separately, each paid for loading tsx, graphql and graphql-ws again
 * (~6 CPU-s for docs/clients.md's three, ~3 s in one). Each must still finish: the process exits only once all
 * have, and none left anything running.
 */
async function runSnippets(snippets: Block[], ports: Map<number, number>, env: Record<string, string>, groups: ChildProcess[]): Promise<void> {
  const dir = join(root, 'node_modules/.cache/runnable-blocks');
  mkdirSync(dir, { recursive: true });
  const fileOf = (block: Block) => join(dir, `${block.doc.replace(/\W/g, '-')}-${block.line}.mts`);
  const done = (k: number) => `__snippet_${k}_done__`;
  const runner = fileOf(snippets[0]!).replace(/\.mts$/, '-runner.mts');
  for (const block of snippets) writeFileSync(fileOf(block), withPorts(block.text, ports));
  writeFileSync(
    runner,
    snippets
      .map((block, k) => `await import(${JSON.stringify(pathToFileURL(fileOf(block)).href)});\nconsole.log(${JSON.stringify(`\n${done(k)}`)});\n`)
      .join(''),
  );
  const names = snippets.map(name).join(', ');
  const run = startGroup(groups, process.execPath, ['--import', 'tsx', runner], env);
  const code = await within(60_000, `${names} to finish`, run.exited);
  const { stdout, stderr } = run.output;
  const unfinished = snippets.filter((_, k) => !stdout.includes(done(k))).map(name);
  expect(code, `${names} exit code (unfinished: ${unfinished.join(', ') || 'none'}); stderr:\n${stderr}`).toBe(0);
  expect(unfinished, `stderr:\n${stderr}`).toEqual([]);
  for (const [k, block] of snippets.entries()) {
    const from = k === 0 ? 0 : stdout.indexOf(done(k - 1)) + done(k - 1).length;
    expectShows(block, stdout.slice(from, stdout.indexOf(done(k))));
  }
}

/**
 * One doc's blocks, run as a reader runs them: one shell for the doc, a second terminal per background block.
 * Every process group it started is stopped at the end (SIGTERM, then SIGKILL to what is left).
 */
async function runDoc(blocks: Block[]): Promise<void> {
  const groups: ChildProcess[] = [];
  try {
    await runBlocks(blocks, groups);
  } finally {
    await Promise.all(groups.map(stopGroup));
  }
}

async function runBlocks(blocks: Block[], groups: ChildProcess[]): Promise<void> {
  const free = await freePorts(DEFAULT_PORTS.length);
  const ports = new Map(DEFAULT_PORTS.map((port, i) => [port, free[i]!]));
  const env = shellEnv(ports);
  // The gateway of `npm start`, until a block starts one of its own in its place.
  let gateway: ChildProcess | null = null;
  // Unless the first block that needs one starts it itself (after the background blocks before it).
  if (
    !has(
      blocks.find((block) => !has(block, 'background'))!,
      'gateway',
    )
  ) {
    const started = startGroup(groups, ...gatewayCommand(), env);
    await gatewayAnswers(ports, started.gone, () => started.output.stderr);
    gateway = started.child;
  }

  // The reader's shell: variables set by one block are there for the next, as when pasted one after another.
  const shell = startGroup(groups, 'bash', ['-eo', 'pipefail'], env, 'pipe');
  shell.child.stdin!.write(`${npmStartAsBundle()}\n`);
  const background: { block: Block; output: { stdout: string }; exited: Promise<number | null> }[] = [];
  const backgroundShown = () =>
    eventually(() => background.every(({ block, output }) => printed(block, output.stdout)), 100, {
      ms: 30_000,
      what: `the background blocks to show their output`,
    }).catch(() => undefined);

  for (const [i, block] of blocks.entries()) {
    const text = withPorts(block.text, ports);
    if (has(block, 'when-shown')) await backgroundShown();
    if (block.lang === 'graphql') {
      const res = await fetch(`http://127.0.0.1:${ports.get(4000)}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: text }),
      });
      const body = (await res.json()) as { data?: unknown; errors?: unknown };
      expect(body.errors, `${name(block)}: ${JSON.stringify(body.errors)}`).toBeUndefined();
      expect(body.data, name(block)).toBeTruthy();
      expectShows(block, JSON.stringify(body));
    } else if (block.lang === 'ts') {
      // Run with the snippets after it, or already run with the one before it.
      if (blocks[i - 1]?.lang !== 'ts') await runSnippets(blocks.slice(i, nextOther(blocks, i)), ports, env, groups);
    } else if (has(block, 'background') || has(block, 'gateway')) {
      // A second terminal: started, left running, its output compared once the doc's later steps ran.
      if (has(block, 'gateway') && gateway) await stopGroup(gateway);
      const run = startGroup(groups, 'bash', ['-eo', 'pipefail', '-c', `${npmStartAsBundle()}\n${text}`], env);
      background.push({ block, ...run });
      if (has(block, 'gateway')) {
        gateway = run.child;
        await gatewayAnswers(ports, run.gone, () => run.output.stderr);
      }
      // What it prints first (an SSE stream's opening comment, a server's line) says it is ready.
      else await eventually(() => run.output.stdout.length > 0 || run.gone(), 50, { ms: 30_000, what: `${name(block)} to start` });
    } else {
      const marker = `__block_${i}_done__`;
      const from = shell.output.stdout.length;
      shell.child.stdin!.write(`${text}\nprintf '\\n%s\\n' ${marker}\n`);
      await eventually(
        () => {
          if (shell.gone()) throw new Error(`${name(block)} failed; stderr:\n${shell.output.stderr}\nstdout:\n${shell.output.stdout.slice(from)}`);
          return shell.output.stdout.includes(marker, from);
        },
        50,
        { ms: 60_000, what: `${name(block)} to finish` },
      );
      const stdout = shell.output.stdout.slice(from, shell.output.stdout.indexOf(marker, from));
      if (block.shows === undefined || !/"errors?"\s*:/.test(block.shows)) expect(stdout, name(block)).not.toMatch(/"errors?"\s*:/);
      expectShows(block, stdout);
    }
  }
  await backgroundShown();
  for (const { block, output } of background) expectShows(block, output.stdout);
}

describe('documented command blocks', () => {
  it('each runs here or says in its fence why it cannot', () => {
    const unmarked = skipped.filter((block) => skipReason(block) === undefined).map(name);
    expect(unmarked, 'mark each `runnable`, or `skip:<reason>` when it needs what a test cannot give').toEqual([]);
    expect(runnable.filter((block) => !RUNNABLE.has(block.lang)).map(name)).toEqual([]);
    expect(runnable.length).toBeGreaterThanOrEqual(15);
  });

  const byDoc = docs.map((doc) => [doc, runnable.filter((block) => block.doc === doc)] as const).filter(([, blocks]) => blocks.length > 0);
  // The docs run side by side: most of their time is waiting for a start or a poll.
  it.concurrent.each(byDoc)('%s: each runs as written and prints what the doc shows', (_doc, blocks) => runDoc(blocks), 120_000);

  // Listed by name, so a run says which blocks it did not run and why.
  for (const block of skipped) it.skip(`${name(block)}: ${skipReason(block) ?? 'unmarked'}`, () => undefined);
});
