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
