import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';

// The bundle's source maps keep only the gateway's own code. With --enable-source-maps, the first stack trace
// that is formatted (a client hanging up mid-query is enough) makes Node parse the map of every bundle file in
// it into arrays of every mapping and hold them for the process's life: ~490,000 mappings, 88 % of them into
// node_modules, ~95 MB of RSS (50 MB of heap). Kept to src/, they take ~6 MB of heap. Library code gets one
// mapping with no original position where it starts, so its frames show the bundle's file and column instead
// of being mapped to the src/ line before them (Node maps a frame to the nearest mapping at or before it).

/** Rewrites every `*.js.map` below `dir` to map only sources outside node_modules (the whole map kept as `*.js.full.map`); returns the mappings kept and dropped. */
export function keepOwnSourceMappings(dir: string): { kept: number; dropped: number } {
  let kept = 0;
  let dropped = 0;
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.js.map')) continue;
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    // The whole map stays beside it for tools that read a profile (bench/profile-summary.ts puts library samples
    // back in their packages with it); nothing refers to it, so Node never loads it.
    writeFileSync(`${path.slice(0, -'.map'.length)}.full.map`, text);
    const map = JSON.parse(text) as { sources: string[]; mappings: string };
    const own = map.sources.map((source) => !source.split(/[\\/]/).includes('node_modules'));
    const lines = decode(map.mappings).map((line) => {
      const out: SourceMapSegment[] = [];
      let inLibrary = false;
      for (const segment of line) {
        if (segment.length > 1 && own[segment[1]!]) {
          out.push(segment);
          inLibrary = false;
          kept += 1;
        } else {
          // Only where library code begins: a generated column with no original position.
          if (!inLibrary) out.push([segment[0]]);
          inLibrary = true;
          dropped += 1;
        }
      }
      return out;
    });
    // Node's parser (20 to 24) reads a bare segment that ends the string as mapped to the source and line of the
    // segment before it: library code at the end of a file would show as src/. A separator after it ends it.
    const mappings = encode(lines);
    writeFileSync(path, JSON.stringify({ ...map, mappings: lines.at(-1)?.at(-1)?.length === 1 ? `${mappings};` : mappings }));
  }
  return { kept, dropped };
}
