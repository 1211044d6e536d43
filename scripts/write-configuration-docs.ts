import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withConfigurationTable } from './readme-configuration.js';

// `npm run docs:config`: rewrites the configuration table of README.md from each area's config.ts (a test fails
// when the README's table is stale).
const target = fileURLToPath(new URL('../README.md', import.meta.url));
writeFileSync(target, withConfigurationTable(readFileSync(target, 'utf8')));
console.log(`wrote the configuration table of ${target}`);
