import { readFileSync } from 'node:fs';
import { inject } from 'vitest';

const startProd = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts[
  'start:prod'
]!;
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

/**
 * A bash function `npm` for the shells of the docs' tests: `npm start` (no other argument) runs the gateway as
 * gatewayCommand() does, the bundle of the sources `npm start` runs through tsx (~4.6 s of CPU a start through tsx,
 * ~1 s bundled; the docs' tests start six); any other npm command is npm's. In a subshell (a background job,
 * `npm start &`) the command replaces it (`exec`), so the job is the gateway or npm itself and `kill $(jobs -p)`
 * reaches it, as it reaches npm when npm is the job. `VAR=… npm start` hands VAR to it, as to npm.
 * `npm start` itself stays under test in test/ops/main-process.test.ts.
 */
export function npmStartAsBundle(): string {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const [command, args] = gatewayCommand();
  const gateway = [command, ...args].map(quote).join(' ');
  // $BASHPID differs from $$ in a subshell only: there exec replaces the job, not the reader's shell.
  return [
    'npm() {',
    `  if [ "$#" = 1 ] && [ "$1" = start ]; then set -- ${gateway}; else set -- "$(type -P npm)" "$@"; fi`,
    '  if [ "$BASHPID" != "$$" ]; then exec "$@"; fi',
    '  "$@"',
    '}',
  ].join('\n');
}
