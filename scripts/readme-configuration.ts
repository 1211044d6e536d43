import { configurationTable } from '../src/config.js';

// Where the configuration table sits in README.md: between these markers, written by `npm run docs:config`
// and checked by test/docs/configuration-table.test.ts.

const START = "<!-- configuration table: written by `npm run docs:config` from each area's config.ts -->";
const END = '<!-- end of configuration table -->';

/** The README with its configuration table rendered from the code; everything around the markers is kept. */
export function withConfigurationTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n\n${configurationTable()}\n\n${readme.slice(end)}`;
}
