import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printErrorDocs } from '../src/errors/print-docs.js';
import { schema } from '../src/schema/index.js';

// `npm run docs:errors`: writes docs/errors.md from the failure catalogue (a test fails when the file is stale).
const target = fileURLToPath(new URL('../docs/errors.md', import.meta.url));
writeFileSync(target, printErrorDocs(schema));
console.log(`wrote ${target}`);
