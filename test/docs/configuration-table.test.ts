import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withConfigurationTable } from '../../scripts/configuration-page.js';
import { configurationTable } from '../../src/config.js';

// The configuration table of docs/configuration.md is written from the areas' declarations, so it must match them, and those
// declarations must cover every variable the gateway reads: a variable read but never declared would be
// neither checked at start-up nor documented.

const root = fileURLToPath(new URL('../../', import.meta.url));
const declared = [...configurationTable().matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);

/** Every source file of the gateway (the sandbox reads its own variables). */
function gatewaySources(dir = join(root, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'sandbox' ? [] : gatewaySources(path);
    return entry.name.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

describe('the configuration table', () => {
  it('in docs/configuration.md matches the areas’ declarations (run `npm run docs:config`)', () => {
    const page = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    expect(page).toBe(withConfigurationTable(page));
  });

  it('lists each variable once, in one area', () => {
    expect(declared.length).toBeGreaterThan(40);
    expect(declared.filter((name, i) => declared.indexOf(name) !== i)).toEqual([]);
  });

  it('lists every variable the gateway reads', () => {
    const read = new Set<string>();
    for (const source of gatewaySources()) {
      for (const [, name] of source.matchAll(/\b(?:process\.env|config|env)\.([A-Z][A-Z0-9_]+)\b/g)) read.add(name!);
      for (const [, names] of source.matchAll(/Pick<Config, ([^>]+)>/g)) {
        for (const [, name] of names!.matchAll(/'([A-Z][A-Z0-9_]+)'/g)) read.add(name!);
      }
    }
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((name) => !declared.includes(name))).toEqual([]);
  });
});
