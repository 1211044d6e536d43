import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleGateway } from '../../scripts/bundle.js';

// Global set-up of the process suites: the gateway they start as a process is the bundle `npm run start:prod`
// runs, built from the sources once per run. Started through tsx instead, every process compiled the sources
// again: ~7 s of CPU per start against ~2 s for the bundle, and the suites start dozens (README: the
// two-minute `npm test`). What `npm start` itself does stays under test where it is the point (npm-start suites,
// the docs' blocks run as written).

declare module 'vitest' {
  export interface ProvidedContext {
    /** The path of the bundle's main.js (test/support/gateway-process.ts). */
    gatewayBundle: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // Inside the project, so the bundle's external imports resolve from its node_modules; one per run, so two runs
  // in one checkout do not rebuild under each other.
  const outdir = fileURLToPath(new URL(`../../node_modules/.cache/gateway-under-test/${process.pid}`, import.meta.url));
  const metafile = await bundleGateway(outdir);
  // Beside the bundle, for the suites that check what it loads (test/ops/production-build.test.ts).
  writeFileSync(`${outdir}/meta.json`, JSON.stringify(metafile));
  project.provide('gatewayBundle', `${outdir}/main.js`);
  return () => rmSync(outdir, { recursive: true, force: true });
}
