import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Suites that start child processes (tsx, the built dist/, Redis, a browser): each keeps a fresh module graph.
// A new suite that spawns processes belongs here (cluster suites match by name).
const processSuites = [
  'test/browser/**/*.test.ts',
  'test/clients/cluster*.test.ts',
  'test/clients/codegen.test.ts',
  'test/graph/generated-files.test.ts',
  'test/live/cluster*.test.ts',
  'test/live/redis-hang.test.ts',
  'test/live/takeover.test.ts',
  'test/ops/main-process.test.ts',
  'test/ops/production-build.test.ts',
  'test/ops/start-up-failures.test.ts',
  'test/ops/start-up-messages.test.ts',
  'test/sandbox/main.test.ts',
  'test/security/shared-rate-limit.test.ts',
];

export default defineConfig({
  resolve: {
    alias: {
      // graphql 16 ships CJS (main) and ESM (module) builds. Node — and so yoga and Pothos at run time —
      // loads the CJS one; Vite would hand our sources the ESM one. Two copies break `instanceof
      // GraphQLError`, so tests use the same build production does.
      graphql: require.resolve('graphql'),
    },
  },
  test: {
    // Suites start real servers on ephemeral ports; two workers match the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: {
          // Everything that runs the gateway, the sandbox or the upstream client in this process. Each file
          // gets its own module graph (vitest's default): a file's top-level `test.override` of the shared
          // fixtures (test/support/test.ts) replaces them for the module, so with a shared graph it leaked
          // into the next file of the worker (another file's API keys, another sandbox balance).
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: processSuites,
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: processSuites,
          // Child processes under a loaded 2-core machine start slowly; the tests themselves wait on events.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
