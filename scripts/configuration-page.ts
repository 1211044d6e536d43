import { configurationTable } from '../src/config.js';

// Where the configuration table sits in docs/configuration.md: between these markers, written by `npm run docs:config`
// and checked by test/docs/configuration-table.test.ts.

const START = "<!-- configuration table: written by `npm run docs:config` from each area's config.ts -->";
const END = '<!-- end of configuration table -->';

/** The page with its configuration table rendered from the code; everything around the markers is kept. */
export function withConfigurationTable(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md has no ${START} … ${END} markers`);
  // The descriptions link from the repository's root; the table sits in docs/.
  const table = configurationTable().replaceAll('](docs/', '](');
  return `${page.slice(0, start + START.length)}\n\n${table}\n\n${page.slice(end)}`;
}
