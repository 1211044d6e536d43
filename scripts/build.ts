import { fileURLToPath } from 'node:url';
import { bundleGateway } from './bundle.js';

// `npm run build` (after the type-check): the bundle of scripts/bundle.ts in dist/, for `npm run start:prod`.
await bundleGateway(fileURLToPath(new URL('../dist', import.meta.url)));
