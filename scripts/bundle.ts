import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { keepOwnSourceMappings } from './own-source-maps.js';

// The gateway and what it imports from node_modules as one ES module bundle, for `npm run start:prod`
// (scripts/build.ts writes it to dist/) and for the suites that start the gateway as a process (built once per
// test run by test/support/bundle-under-test.ts). One bundle instead of a file per module because a process keeps
// every module's source text and its own compiled code: bundled, tree-shaken and stripped of whitespace, the
// idle production start takes ~96 MB of RSS instead of ~123 MB (node --import tsx bench/memory.ts idle).
// What a process loads only on demand stays a chunk of its own, loaded by the same dynamic import: the
// embedded sandbox, graphql-jit. ioredis and rate-limiter-flexible are not bundled: cluster/redis.ts,
// cluster/shared-limits.ts and security/shared-rate-limit.ts require them from node_modules in cluster mode only,
// so they stay runtime dependencies; so does @graphql-yoga/render-graphiql, which a child node of
// graphiql-page.ts loads from node_modules to render GraphiQL's page into files. OpenTelemetry stays in
// node_modules too: its ioredis instrumentation patches that module as Node requires it (by name, through
// require-in-the-middle), the SDK is loaded only when tracing is on, and the API must be one copy with the SDK's.
// `outdir` must sit inside the project: the bundle's external imports resolve from the node_modules above it.

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * zod's namespace `z` re-exports `locales`, every language's messages (63 of them, 290 KB of the 3.8 MB bundle),
 * so nothing tree-shakes them, and a process holds the text of every module it loads. The gateway reads zod's
 * issues in English only (zod configures `en` itself): its locales module is made to hold `en` alone.
 */
const englishOnlyZod: Plugin = {
  name: 'english-only-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(importer)
        ? { path: join(dirname(importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ path }) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(path),
    }));
  },
};

/** Builds the bundle into `outdir`; returns esbuild's account of it (which inputs went into which output, and its imports). */
export async function bundleGateway(outdir: string): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // No mainFields: packages resolve as Node resolves them (graphql to its CommonJS build, as in the tests).
    // graphql's ES build would tree-shake smaller, but graphql-jit requires graphql's CommonJS files by path,
    // and two copies of graphql's classes in one bundle break instanceof between them.
    // Identifiers are kept, so stack traces, heap snapshots and constructor names read as in the source.
    minifyWhitespace: true,
    minifySyntax: true,
    // Stack traces map to src/ (start:prod runs with --enable-source-maps; maps of src/ only, see below), for which the mappings suffice:
    // the sources' text would be held in memory for the process's life.
    sourcemap: true,
    sourcesContent: false,
    // CommonJS dependencies (undici, pino, ws, prom-client) call require() for Node's modules, which an ES
    // module does not have.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    external: ['@opentelemetry/*'],
    plugins: [englishOnlyZod],
    logLevel: 'warning',
    metafile: true,
  });
  // Source maps of the gateway's own code only (scripts/own-source-maps.ts says why).
  keepOwnSourceMappings(outdir);
  return metafile;
}
