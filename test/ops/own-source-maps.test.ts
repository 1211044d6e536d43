import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { afterEach, describe, expect, it } from 'vitest';
import { keepOwnSourceMappings } from '../../scripts/own-source-maps.js';

// The production bundle's source maps keep the gateway's own mappings only: Node holds every mapping of a
// parsed map for the process's life (~95 MB for the whole bundle's), and library frames are read in the bundle.

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('source maps of the production bundle', () => {
  it("keeps src/'s mappings and leaves library code unmapped instead of mapped to the src/ line before it", () => {
    dir = mkdtempSync(join(tmpdir(), 'own-maps-'));
    // One bundle line: src/a.ts at columns 0 and 10, a library from 20 to 40, src/b.ts again from 50.
    const mappings = encode([
      [
        [0, 0, 0, 0],
        [10, 0, 1, 4],
        [20, 1, 7, 0],
        [30, 1, 8, 2],
        [40, 1, 9, 0],
        [50, 2, 3, 0],
      ],
    ]);
    const sources = ['../src/a.ts', '../node_modules/lib/index.js', '../src/b.ts'];
    writeFileSync(
      join(dir, 'main.js.map'),
      JSON.stringify({ version: 3, file: 'main.js', sourceRoot: '', sources, sourcesContent: [], names: [], mappings }),
    );

    expect(keepOwnSourceMappings(dir)).toEqual({ kept: 3, dropped: 3 });
    const map = JSON.parse(readFileSync(join(dir, 'main.js.map'), 'utf8')) as SourceMapPayload;
    expect(decode(map.mappings)).toEqual([[[0, 0, 0, 0], [10, 0, 1, 4], [20], [50, 2, 3, 0]]]);
    // The whole map beside it, for profiles of the bundle (bench/profile-summary.ts).
    expect((JSON.parse(readFileSync(join(dir, 'main.js.full.map'), 'utf8')) as SourceMapPayload).mappings).toBe(mappings);

    // As Node reads it for --enable-source-maps.
    const node = new SourceMap(map);
    expect(node.findEntry(0, 15)).toMatchObject({ originalSource: expect.stringMatching(/src\/a\.ts$/), originalLine: 1 });
    expect(node.findEntry(0, 35)).not.toHaveProperty('originalSource', expect.any(String));
    expect(node.findEntry(0, 55)).toMatchObject({ originalSource: expect.stringMatching(/src\/b\.ts$/), originalLine: 3 });
  });

  it('leaves library code that ends the file unmapped too, not mapped to the src/ line before it', () => {
    dir = mkdtempSync(join(tmpdir(), 'own-maps-'));
    // src/a.ts, then a library to the end of the file: the map's last segment is the bare one.
    const mappings = encode([
      [
        [0, 0, 4, 0],
        [10, 1, 7, 0],
        [20, 1, 8, 2],
      ],
    ]);
    const sources = ['../src/a.ts', '../node_modules/lib/index.js'];
    writeFileSync(join(dir, 'tail.js.map'), JSON.stringify({ version: 3, file: 'tail.js', sources, names: [], mappings }));

    keepOwnSourceMappings(dir);
    const map = JSON.parse(readFileSync(join(dir, 'tail.js.map'), 'utf8')) as SourceMapPayload;
    expect(decode(map.mappings)[0]).toEqual([[0, 0, 4, 0], [10]]);
    const node = new SourceMap(map);
    expect(node.findEntry(0, 5)).toMatchObject({ originalSource: expect.stringMatching(/src\/a\.ts$/), originalLine: 4 });
    expect(node.findEntry(0, 25)).not.toHaveProperty('originalSource', expect.any(String));
  });
});
