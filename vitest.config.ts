import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

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
    include: ['test/**/*.test.ts'],
    // Suites start real servers on ephemeral ports; two workers match the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
