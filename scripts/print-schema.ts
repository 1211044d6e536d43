import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchemaFile } from '../src/schema/print.js';

// `npm run schema`: writes schema.graphql from the Pothos schema (a test fails when the file is stale).
const target = fileURLToPath(new URL('../schema.graphql', import.meta.url));
writeFileSync(target, printSchemaFile());
console.log(`wrote ${target}`);
