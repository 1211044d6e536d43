// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The recommended rules, which the code already follows, without type information: type-aware linting costs
// minutes of CPU on this codebase, and the compiler (`npm run typecheck`, strict) already checks types.
export default tseslint.config(
  { ignores: ['node_modules/', 'coverage/', 'dist/', 'operations/__generated__/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Tests and benchmarks read JSON answers whose shape each assertion states; `any` is how they hold them.
    // The gateway's own code gets no such pass.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The benchmark's peers are plain JavaScript run by node.
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', fetch: 'readonly', console: 'readonly' } },
  },
);
