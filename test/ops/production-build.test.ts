import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { bearer, KEYS, KEYS_ENV } from '../security/keys.js';

// The production path as docs/production.md gives it: the bundle `npm run build` writes to dist/, in a copy of the
// project with runtime dependencies only, started with `npm run start:prod` (plain node on dist/). The copy has
// no tsx, TypeScript or src/, so anything the built gateway still needs from them fails here.
// Two steps are taken the cheap way, each proven whole elsewhere: the bundle is the one this run's global set-up
// built with scripts/bundle.ts, which is all `npm run build` does after `npm run typecheck` (npm test's first
// step); and the runtime-only tree is the installed one with the development packages pruned (`npm prune
// --omit=dev` on a hard-linked copy), the tree `npm ci --omit=dev` installs from the same lockfile, which
// `npm run test:container` runs for real. Done here in full they cost about 45 s of CPU of a two-minute npm test.

const root = fileURLToPath(new URL('../../', import.meta.url));
/** What `npm run build` writes to dist/: this run's bundle (test/support/bundle-under-test.ts). */
const dist = dirname(inject('gatewayBundle'));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

interface Started {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** Its log lines so far. */
  log(): string;
}

/**
 * `npm run start:prod` in the production copy, as a supervisor starts it: the signals the test sends go to npm,
 * and the script's `exec` makes the gateway npm's direct child, so npm forwards them and exits with the
 * gateway's code. Resolves with the URL of its "gateway listening" line.
 */
function startProd(
  cwd: string,
  env: Record<string, string>,
  command: [string, string[]] = ['npm', ['run', '--silent', 'start:prod']],
): Promise<Started> {
  const child = spawn(command[0], command[1], {
    cwd,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      SANDBOX_PORT: '0',
      LOG_LEVEL: 'info',
      REWARD_API_URL: '',
      REWARD_API_TOKEN: '',
      GATEWAY_API_KEYS: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg: string; url?: string };
        if (entry.msg === 'gateway listening' && entry.url) resolve({ child, url: entry.url, exited, log: () => stdout });
      }
    });
    void exited.then((code) => reject(new Error(`start:prod exited with ${code} before listening:\n${stdout}\n${stderr}`)));
  });
}

/** SIGTERM to npm; resolves with its exit code once the gateway's port no longer accepts connections. */
async function stop(started: Started): Promise<number | null> {
  started.child.kill('SIGTERM');
  const code = await started.exited;
  await expect(fetch(`${started.url}/health`)).rejects.toThrow();
  return code;
}

async function gql(url: string, query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: { message: string }[] } };
}

describe('production build', { timeout: 120_000 }, () => {
  let copy: string;

  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), 'reward-gateway-prod-'));
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(copy, file));
    cpSync(dist, join(copy, 'dist'), { recursive: true });
    // Hard links: pruning unlinks the copy's entries and leaves the project's alone.
    const link = await run('cp', ['-al', join(root, 'node_modules'), join(copy, 'node_modules')], root);
    expect(link.code, link.output).toBe(0);
    rmSync(join(copy, 'node_modules', '.cache'), { recursive: true, force: true });
    // npm rewrites its record of the installed tree (the hidden lockfile) in place: linked, the prune would write
    // the pruned tree into the project's own record too.
    rmSync(join(copy, 'node_modules', '.package-lock.json'), { force: true });
    const prune = await run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], copy);
    expect(prune.code, prune.output).toBe(0);
  }, 900_000);

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it('compiles every module to dist/ with a source map, and the production start is plain node', () => {
    const files = readdirSync(dist, { recursive: true }).map(String);
    expect(files).toContain('main.js');
    for (const js of files.filter((f) => f.endsWith('.js'))) {
      expect(files, js).toContain(`${js}.map`);
      expect(readFileSync(join(dist, js), 'utf8'), js).toMatch(/\/\/# sourceMappingURL=.+\.js\.map\s*$/);
    }
    // `exec`: npm runs scripts through sh, which would otherwise stay between npm and the gateway.
    expect(pkg.scripts['start:prod']).toMatch(/^exec node (--[a-z-]+(=\d+)? )*dist\/main\.js$/);
  });

  it('loads neither the MCP SDK nor all of undici at start: what only /mcp uses is imported when /mcp is on', () => {
    // esbuild's account of this run's bundle (test/support/bundle-under-test.ts): the outputs the chunk holding
    // app.ts imports statically are what every gateway loads at start; a dynamic import waits until it is asked.
    const { outputs } = JSON.parse(readFileSync(join(dist, 'meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown>; imports: { path: string; kind: string }[] }>;
    };
    const app = Object.keys(outputs).find((out) => 'src/app.ts' in outputs[out]!.inputs)!;
    const loaded = new Set([app]);
    for (const out of loaded)
      for (const { path, kind } of outputs[out]!.imports) if (kind === 'import-statement' && path in outputs) loaded.add(path);
    const inputs = [...loaded].flatMap((out) => Object.keys(outputs[out]!.inputs));
    expect(inputs).toContain('src/mcp/from-config.ts');
    expect(inputs.filter((input) => input.startsWith('node_modules/@modelcontextprotocol/'))).toEqual([]);
    expect(inputs).not.toContain('node_modules/undici/index.js');
    // Still in the bundle, for a gateway whose /mcp is on.
    expect(Object.values(outputs).some((o) => Object.keys(o.inputs).some((i) => i.startsWith('node_modules/@modelcontextprotocol/')))).toBe(true);
  });

  it("holds zod's English messages and no other language's: every one was loaded at start, for nothing", () => {
    const { outputs } = JSON.parse(readFileSync(join(dist, 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const locales = Object.values(outputs)
      .flatMap((o) => Object.keys(o.inputs))
      .filter((input) => input.includes('zod/v4/locales/'));
    expect(locales).toContain('node_modules/zod/v4/locales/en.js');
    expect(locales.filter((input) => !/locales\/(en|index)\.js$/.test(input))).toEqual([]);
  });

  it('the production copy holds runtime dependencies only', () => {
    // The lockfile marks what only development needs; none of it may be in the copy.
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => path && entry.dev)
      .map(([path]) => path);
    for (const tool of ['tsx', 'typescript', 'vitest']) expect(devOnly).toContain(`node_modules/${tool}`);
    for (const path of devOnly) expect(existsSync(join(copy, path)), path).toBe(false);
    expect(existsSync(join(copy, 'src'))).toBe(false);
  });

  it('starts on the embedded sandbox outside production and serves a query, and GraphiQL', async () => {
    const started = await startProd(copy, { NODE_ENV: 'development' });
    try {
      const res = await gql(started.url, '{ viewer { username } }');
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.viewer.username).toEqual(expect.any(String));
      // The page is rendered from the runtime dependencies by a child node (graphiql-page.ts), not bundled.
      const page = await fetch(`${started.url}/graphql`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('YogaGraphiQL.renderYogaGraphiQL');
    } finally {
      expect(await stop(started)).toBe(0);
    }
  });

  describe('in production', () => {
    let upstream: RunningSandbox;
    beforeAll(async () => {
      upstream = await startSandbox();
    });
    afterAll(() => upstream?.close());

    it('starts with NODE_ENV=production against a real upstream and answers callers with a key', async () => {
      const started = await startProd(copy, {
        NODE_ENV: 'production',
        REWARD_API_URL: upstream.baseUrl,
        REWARD_API_TOKEN: upstream.token,
        ...KEYS_ENV,
      });
      try {
        expect((await fetch(`${started.url}/ready`)).status).toBe(200);
        // Twice: a document runs compiled from its second execution, which loads graphql-jit's chunk of the
        // bundle in a copy that has runtime dependencies only.
        for (let run = 0; run < 2; run++) {
          const res = await gql(started.url, '{ brands(first: 1) { totalCount } }', bearer(KEYS.reader));
          expect(res.body.errors).toBeUndefined();
          expect(res.body.data.brands.totalCount).toBeGreaterThan(0);
        }
        expect((await gql(started.url, '{ brands(first: 1) { totalCount } }')).status).toBe(401);
        // start:prod's flags let the heap trim run (src/ops/heap-trim.ts)…
        expect(started.log()).not.toContain('heap trim off');
      } finally {
        expect(await stop(started)).toBe(0);
      }
    });

    it('says so when started without start:prod flags, which leave the heap trim off', async () => {
      const env = { NODE_ENV: 'production', REWARD_API_URL: upstream.baseUrl, REWARD_API_TOKEN: upstream.token, ...KEYS_ENV };
      const started = await startProd(copy, env, [process.execPath, ['dist/main.js']]);
      try {
        const line = started
          .log()
          .split('\n')
          .find((l) => l.includes('heap trim off'));
        expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 'info', reason: expect.stringContaining('--expose-gc') as string });
      } finally {
        started.child.kill('SIGTERM');
        await started.exited;
      }
    });
  });
});
