import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withConfigurationTable } from './configuration-page.js';

// `npm run docs:config`: rewrites the configuration table of docs/configuration.md from each area's config.ts (a
// test fails when the table is stale).
const target = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
writeFileSync(target, withConfigurationTable(readFileSync(target, 'utf8')));
console.log(`wrote the configuration table of ${target}`);
