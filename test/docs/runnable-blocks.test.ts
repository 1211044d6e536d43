import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, freePort, within } from '../support/cluster.js';

// The command sequences of the README and docs/ run as written (README, "Runnable blocks"): every fenced block
// marked `runnable` after its language is run, in order, against a gateway started here as `npm start` starts
// it, or, when marked `standalone`, with nothing started for it. Each block's default ports are rewritten to
// free ones, and every process a block starts is stopped with its process group.

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = ['README.md', ...readdirSync(join(root, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : []))];

interface Block {
  lang: 'graphql' | 'sh';
  standalone: boolean;
  /** 1-based line of the opening fence, to name the block. */
  line: number;
  text: string;
}

function runnableBlocks(doc: string): Block[] {
  const text = readFileSync(join(root, doc), 'utf8');
  return [...text.matchAll(/^```(\w+)[ \t]+([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)].flatMap((m) => {
    const flags = m[2]!.trim().split(/\s+/);
    if (!flags.includes('runnable')) return [];
    if (m[1] !== 'graphql' && m[1] !== 'sh') throw new Error(`${doc}: a runnable block must be graphql or sh, not ${m[1]}`);
    return [{ lang: m[1], standalone: flags.includes('standalone'), line: text.slice(0, m.index).split('\n').length, text: m[3]! }];
  });
}

/** The documented default ports, each rewritten where it follows `:`, `=` or `--port `. */
const DEFAULT_PORTS = [4000, 4001, 4002, 4003, 4010, 6390];
const PORT_AT = new RegExp(`(?<=:|=|--port )(${DEFAULT_PORTS.join('|')})\\b`, 'g');
const withPorts = (text: string, ports: Map<number, number>) => text.replace(PORT_AT, (port) => String(ports.get(Number(port))));

/** A clean environment: nothing of the test's gateway settings or vitest's leaks into what a block starts. */
const shellEnv = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
});

/** Process groups started here, stopped after each test (SIGTERM, then SIGKILL to what is left). */
const groups: ChildProcess[] = [];

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterEach(async () => {
  for (const child of groups.splice(0)) {
    const pid = child.pid!;
    if (!groupAlive(pid)) continue;
    process.kill(-pid, 'SIGTERM');
    try {
      await eventually(() => !groupAlive(pid), 50, { ms: 15_000, what: `process group ${pid} to stop` });
    } catch {
      if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
});

/** Starts `command` as the leader of a process group of its own, for afterEach to stop whole. */
function startGroup(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  groups.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** The gateway as `npm start` runs it (its command, with the embedded sandbox), on free ports. */
async function startGateway(ports: Map<number, number>): Promise<void> {
  const { output, exited } = startGroup(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    ...shellEnv(),
    HOST: '127.0.0.1',
    PORT: String(ports.get(4000)),
    SANDBOX_PORT: String(ports.get(4010)),
    LOG_LEVEL: 'warn',
  });
  const url = `http://127.0.0.1:${ports.get(4000)}/health`;
  let gone = false;
  void exited.then(() => (gone = true));
  await eventually(
    async () => {
      if (gone) throw new Error(`the gateway exited:\n${output.stderr}`);
      return fetch(url)
        .then((res) => res.ok)
        .catch(() => false);
    },
    100,
    { ms: 45_000, what: 'the gateway to answer /health' },
  );
}

async function runGraphql(block: Block, ports: Map<number, number>): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${ports.get(4000)}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: block.text }),
  });
  const body = (await res.json()) as { data?: unknown; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(body.data).toBeTruthy();
  expect(JSON.stringify(body.data)).not.toMatch(/"__typename":"(ValidationError|UpstreamRejected|OutcomeUnknown|UpstreamUnavailable)"/);
}

async function runShell(block: Block, ports: Map<number, number>): Promise<string> {
  const { output, exited } = startGroup('bash', ['-eo', 'pipefail', '-c', withPorts(block.text, ports)], shellEnv());
  const code = await within(150_000, `the block at line ${block.line} to finish`, exited);
  expect(code, `exit code; stderr:\n${output.stderr}\nstdout:\n${output.stdout}`).toBe(0);
  // A standalone block's own output is mixed with the logs of what it started in the background.
  if (!block.standalone) expect(output.stdout).not.toMatch(/"errors?"\s*:/);
  return output.stdout;
}

/** What a block's output must show, beyond finishing without an error, by document and first line. */
const SHOWS: Record<string, (stdout: string, ports: Map<number, number>) => Promise<void> | void> = {
  'README.md:curl -s http://127.0.0.1:4000/graphql': (out) => expect(out).toMatch(/"viewer":\{"username":/),
  'README.md:GATEWAY=http://127.0.0.1:4000/graphql': (out) => {
    // The three rewards were played as the comments say: redeemed, soft-bounced, expired.
    expect(out).toMatch(/"status":"REDEEMED"/);
    expect(out).toMatch(/"delivery_status":"TEMPORARILY_UNDELIVERABLE"/);
    expect(out).toMatch(/"status":"EXPIRED"/);
    expect(out).toMatch(/"creates":\{[^}]*"play-0001":1[,}]/);
  },
};

const withBlocks = docs.map((doc) => [doc, runnableBlocks(doc)] as const).filter(([, blocks]) => blocks.length > 0);

describe('runnable blocks', () => {
  // docs/cluster.md's blocks are one walkthrough in one shell: test/docs/cluster-walkthrough.test.ts runs them.
  it('are marked in the README', () => {
    expect(withBlocks.map(([doc]) => doc)).toContain('README.md');
    expect(runnableBlocks('README.md').length).toBeGreaterThanOrEqual(3);
  });

  it.each(withBlocks)(
    '%s: each runs as written',
    async (doc, blocks) => {
      const ports = new Map<number, number>();
      for (const port of DEFAULT_PORTS) ports.set(port, await freePort());
      if (blocks.some((block) => !block.standalone)) await startGateway(ports);
      for (const block of blocks) {
        if (block.lang === 'graphql') {
          await runGraphql(block, ports);
          continue;
        }
        const stdout = await runShell(block, ports);
        await SHOWS[`${doc}:${block.text.split('\n')[0]}`]?.(stdout, ports);
      }
    },
    240_000,
  );
});
