import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeFlagsOf, productionNodeFlags } from '../../bench/targets.js';

// The bench measures the compiled gateway with start:prod's node flags. When start:prod became `exec node …`
// the flags were silently dropped (the reader expected `node` first) and every comparison ran plain node.

describe('bench targets', () => {
  it("reads the node flags of a script, through the shell's exec or not", () => {
    expect(nodeFlagsOf('exec node --enable-source-maps --max-semi-space-size=32 dist/main.js')).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=32',
    ]);
    expect(nodeFlagsOf('node --enable-source-maps dist/main.js')).toEqual(['--enable-source-maps']);
    expect(nodeFlagsOf('exec tsx src/main.ts')).toEqual([]);
    expect(nodeFlagsOf(undefined)).toEqual([]);
  });

  it("starts the compiled gateway with this package's start:prod flags", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    const flags = pkg.scripts['start:prod']!.split(/\s+/).filter((w) => w.startsWith('--'));
    expect(flags).toContain('--enable-source-maps');
    expect(productionNodeFlags()).toEqual(flags);
  });
});
