import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs stand alone in a clone: no reference to files outside the repository, every relative link leads
// to a file that exists, and every #anchor to a heading that exists.

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

describe.each(docs)('%s', (doc) => {
  const file = join(root, doc);
  const text = readFileSync(file, 'utf8');

  it('names no file outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared|upstream-facts|reward-api-spec/);
  });

  it('links only to files and headings that exist in the repository', () => {
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const linked = path ? resolve(dirname(file), path) : file;
      expect(relative(root, linked).startsWith('..'), target).toBe(false);
      expect(existsSync(linked), target).toBe(true);
      if (anchor && linked.endsWith('.md')) expect([...anchorsOf(linked)], target).toContain(anchor);
    }
  });
});
