import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { printSchemaFile } from '../../src/schema/print.js';

// Committed artefacts must match what the code produces: a stale schema.graphql or generated operation
// types would mislead every client team.

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('generated files are current', () => {
  it('schema.graphql matches the Pothos schema (run `npm run schema`)', () => {
    expect(readFileSync(join(root, 'schema.graphql'), 'utf8')).toBe(printSchemaFile());
  });

  it('operations/__generated__ matches codegen output (run `npm run codegen`)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'codegen-'));
    try {
      // The real CLI, as `npm run codegen` runs it, so the comparison cannot drift from what developers get.
      execFileSync(process.execPath, [join(root, 'node_modules/@graphql-codegen/cli/cjs/bin.js'), '--config', 'codegen.ts', '--silent'], {
        cwd: root,
        env: { ...process.env, CODEGEN_OUT: `${scratch}/` },
        stdio: 'pipe',
      });
      const committed = join(root, 'operations/__generated__');
      const files = readdirSync(scratch).sort();
      expect(readdirSync(committed).sort()).toEqual(files);
      for (const file of files) {
        expect(readFileSync(join(committed, file), 'utf8'), `${file} is stale`).toBe(readFileSync(join(scratch, file), 'utf8'));
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});
