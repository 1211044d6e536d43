import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import SlowSetUpFirst from './test/support/sequencer.js';

const require = createRequire(import.meta.url);

// Suites that start child processes (tsx, the built dist/, Redis, a browser). A new suite that spawns processes
// belongs here (cluster suites match by name).
const processSuites = [
  'test/browser/**/*.test.ts',
  'test/cache/cluster.test.ts',
  'test/deploy/prometheus.test.ts',
  'test/docs/cluster-walkthrough.test.ts',
  'test/docs/runnable-blocks.test.ts',
  'test/clients/cluster*.test.ts',
  'test/clients/codegen.test.ts',
  'test/graph/generated-files.test.ts',
  'test/live/cluster*.test.ts',
  'test/mcp/conformance.test.ts',
  'test/mcp/inspector.test.ts',
  'test/ops/heap-trim-v8.test.ts',
  'test/ops/main-process.test.ts',
  'test/ops/shutdown.test.ts',
  'test/ops/production-build.test.ts',
  'test/ops/start-up-failures.test.ts',
  'test/ops/start-up-messages.test.ts',
  'test/ops/tracing.test.ts',
  'test/sandbox/main.test.ts',
  'test/security/shared-rate-limit.test.ts',
  'test/shared/registry-retention.test.ts',
  'test/upstream/shared-budget.test.ts',
  'test/webhooks/cluster*.test.ts',
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
    pool: 'forks',
    // The files that take longest without vitest's order showing it start first (test/support/sequencer.ts).
    sequence: { sequencer: SlowSetUpFirst },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // oidc-provider (the identity suites' real OpenID provider, a dev dependency) warns on import that it
    // wants Node 22 (the gateway supports Node 20, and the provider works on it for what the tests use), and
    // that its in-memory store is not for production (a test's provider lives for one file). Those two
    // lines are dropped so `npm test` prints only what a suite asked for.
    onConsoleLog: (log) => !/^oidc-provider WARNING: (Unsupported runtime|a quick start development-only in-memory adapter)/.test(log),
    projects: [
      {
        extends: true,
        test: {
          // Everything that runs the gateway, the sandbox or the upstream client in this process. Importing
          // the schema, yoga and undici is most of a file's cost, so the files of a worker share one module
          // graph (isolate: false). Safe because every file builds its own gateway, sandbox, metrics registry
          // and clock, nothing in src/ keeps per-run state at module level, and a file's fixture options live
          // on its own `test` (testWith in test/support/test.ts), not on the shared one.
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: processSuites,
          isolate: false,
          // With the process suites (below), in one pool of four workers on two cores: a file waits on its own
          // timers and sockets often enough that two left the cores a third idle (`npm run test:fast`: 74 s on
          // two, 51 on four, CPU 76 → 89 s for the extra module graphs).
          sequence: { groupOrder: 0 },
          maxWorkers: 4,
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: processSuites,
          // In the same pool as the in-process files, the longest first (test/support/sequencer.ts): they wait on
          // their processes most of the time, and the in-process files use the cores meanwhile. Run as a group of
          // their own first (three workers) and then the in-process files, `npm test` took 125–130 s on
          // 2026-11-29; in one pool of four, 108–124 s in twelve runs, up to four process suites at once, and the
          // suites that count what Redis granted passed in each. More workers had once broken those: a replica
          // took its own stalled event loop for Redis hanging (fixed in cluster/redis.ts), and the shared-budget
          // suite counted arrivals per second, which a loaded machine delivers unevenly (it now counts by Redis's
          // clock).
          sequence: { groupOrder: 0 },
          maxWorkers: 4,
          // The gateway these suites start as a process: built once per run (test/support/bundle-under-test.ts).
          globalSetup: ['test/support/bundle-under-test.ts'],
          // Child processes under a loaded 2-core machine start slowly; the tests themselves wait on events.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // The files of a worker share one module graph, as in-process: a fresh one per file imported the test
          // support (and through it the gateway's sources) again, ~1.5 s of CPU a file. Safe for the same reasons,
          // and because what a file starts (replicas, Redis, a shell) it stops in its own afterAll.
          isolate: false,
        },
      },
    ],
  },
});
