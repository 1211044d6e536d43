import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The image is built from an allow-list (.dockerignore): what `npm ci` and `npm run build` read, nothing else.
// A module the build script starts importing has to join the list, or the image build fails, and only
// `npm run test:container` (minutes, not in `npm test`) would say so; this says it in milliseconds.

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The repository's files that `entry` imports, itself included, following relative imports. */
function localModules(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = readFileSync(join(root, entry), 'utf8');
  for (const [, specifier] of text.matchAll(/from '(\.\.?\/[^']+)'/g)) {
    localModules(relative(root, join(root, dirname(entry), specifier!.replace(/\.js$/, '.ts'))), seen);
  }
  return seen;
}

describe('the container build context', () => {
  it('holds every module the build script imports', () => {
    const allowed = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1));
    const inContext = (file: string) => allowed.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));
    const modules = [...localModules('scripts/build.ts')];
    // The walk follows imports (the build script has some of its own).
    expect(modules.length).toBeGreaterThan(1);
    expect(modules.filter((file) => !inContext(file))).toEqual([]);
  });
});
