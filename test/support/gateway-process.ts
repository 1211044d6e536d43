import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
const startProd = scripts['start:prod']!;
/** The node flags `npm run start:prod` starts the bundle with. */
const nodeFlags = startProd.split(/\s+/).filter((word) => word.startsWith('--'));

/**
 * The command that starts the gateway as a process the way `npm run start:prod` does (node with its flags on the
 * bundle), on the bundle test/support/bundle-under-test.ts built for this run. Only in the process suites, whose
 * global set-up builds it.
 */
export function gatewayCommand(): [command: string, args: string[]] {
  return [process.execPath, [...nodeFlags, inject('gatewayBundle')]];
}

export interface DevelopmentGateway {
  /** Once it listens: its base URL and the embedded sandbox's control URL. Fails if the process exits first. */
  listening: Promise<{ url: string; controlUrl: string }>;
  /** SIGTERM, resolved once it has exited (at once if it already has). */
  stop(): Promise<void>;
}

/**
 * The gateway as a developer's `npm start` runs it: keyless development on the embedded sandbox, on loopback and
 * ephemeral ports, on the bundle (gatewayCommand; `npm start` itself is under test in test/ops/main-process.test.ts).
 * Returned at once, so a suite whose set-up timed out still stops it in afterAll.
 */
export function startDevelopmentGateway(): DevelopmentGateway {
  const [command, args] = gatewayCommand();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', SANDBOX_PORT: '0', REWARD_API_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<{ url: string; controlUrl: string }>((resolve, reject) => {
    let controlUrl = '';
    let scanned = 0;
    child.stdout.on('data', (data) => {
      stdout += data;
      // Whole lines only (a chunk may end mid-line), each once (the gateway logs a line per operation); the JSON
      // log lines, not the greeting for humans.
      const end = stdout.lastIndexOf('\n') + 1;
      const logLines = stdout
        .slice(scanned, end)
        .split('\n')
        .filter((l) => l.startsWith('{'));
      scanned = end;
      for (const line of logLines) {
        const { msg, url, controlUrl: control } = JSON.parse(line) as { msg: string; url?: string; controlUrl?: string };
        if (control) controlUrl = control;
        if (msg === 'gateway listening' && url) resolve({ url, controlUrl });
      }
    });
    void exited.then(() => reject(new Error(`the gateway exited before listening:\n${stdout}\n${stderr}`)));
  });
  // A gateway that exits before listening fails `listening`; one stopped later must not leave it unhandled.
  listening.catch(() => {});
  return {
    listening,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Bash functions `npm` and `npx` for the shells of the docs' tests, which run what a reader's command runs without
 * the npm and tsx command-line programs around it (~1.2 CPU-s each a start; the docs' tests start a dozen):
 * - `npm start` (no other argument) runs the gateway as gatewayCommand() does, the bundle of the sources `npm start`
 *   runs through tsx (~4.6 s of CPU a start through tsx, ~1 s bundled). `npm start` itself stays under test in
 *   test/ops/main-process.test.ts.
 * - `npm run <script>` of a package.json script that is `tsx <file> …` (`npm run sandbox`) runs
 *   `node --import tsx <file> …`, and `npx tsx <file> …` runs the same: tsx still compiles the file, as the tsx
 *   program has node do.
 * - any other npm or npx command is npm's.
 * In a subshell (a background job, `npm start &`) the command replaces it (`exec`), so the job is the gateway (or
 * node) itself and `kill $(jobs -p)` reaches it, as it reaches npm when npm is the job. `VAR=… npm start` hands VAR
 * to it, as to npm.
 */
export function npmStartAsBundle(): string {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const [command, args] = gatewayCommand();
  const gateway = [command, ...args].map(quote).join(' ');
  const tsx = [process.execPath, '--import', 'tsx'].map(quote).join(' ');
  const tsxScripts = Object.entries(scripts).flatMap(([name, line]) => {
    const file = /^(?:exec )?tsx (\S+)$/.exec(line)?.[1];
    return file ? [`    ${quote(`run ${name}`)}) set -- ${tsx} ${quote(file)} ;;`] : [];
  });
  // $BASHPID differs from $$ in a subshell only: there exec replaces the job, not the reader's shell.
  const run = ['  if [ "$BASHPID" != "$$" ]; then exec "$@"; fi', '  "$@"'];
  return [
    'npm() {',
    '  case "$*" in',
    `    start) set -- ${gateway} ;;`,
    ...tsxScripts,
    '    *) set -- "$(type -P npm)" "$@" ;;',
    '  esac',
    ...run,
    '}',
    'npx() {',
    `  if [ "$1" = tsx ]; then shift; set -- ${tsx} "$@"; else set -- "$(type -P npx)" "$@"; fi`,
    ...run,
    '}',
  ].join('\n');
}
