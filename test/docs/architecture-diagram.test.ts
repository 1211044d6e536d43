// docs/architecture.md draws the layers of src/ as a mermaid flowchart. Each arrow is a claim that the modules
// of one box import modules of the other, and each box names the folder or modules it stands for; both are
// checked here against the import graph dependency-cruiser reads from src/ with the project's own options, so
// the picture cannot drift from the code (an arrow to a layer nothing imports fails, as does a box whose
// modules are gone). Dotted arrows are labelled exceptions and are held to the same rule.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(`${root}docs/architecture.md`, 'utf8');
// The flowchart of the section "Layers" (the page's other charts draw the request's path, not imports).
const layers = doc.slice(doc.indexOf('\n## Layers'));
const chart = /```mermaid\nflowchart TD\n([\s\S]*?)```/.exec(layers.slice(0, layers.indexOf('\n## ', 1) >>> 0))?.[1] ?? '';

/** Node id → the modules its label names: a folder (`live/`) or files (`graph/context.ts`), relative to src/. */
const nodes = new Map<string, string[]>();
for (const [, id, label] of chart.matchAll(/(\w+)\["([^"]+)"\]/g))
  nodes.set(
    id!,
    label!.split(/,\s*/).map((part) => part.trim()),
  );
const arrows = [...chart.matchAll(/^\s*(\w+)(?:\[[^\]]*\])?\s*(-->|-\.->)(?:\|"[^"]*"\|)?\s*(\w+)/gm)].map(([, from, , to]) => ({
  from: from!,
  to: to!,
}));

const inNode = (id: string, module: string) =>
  (nodes.get(id) ?? []).some((part) => (part.endsWith('/') ? module.startsWith(`src/${part}`) : module === `src/${part}`));

let graph: ICruiseResult;
beforeAll(async () => {
  const options = { ...(await extractDepcruiseOptions(`${root}.dependency-cruiser.mjs`)), baseDir: root, cache: false };
  graph = (await cruise(['src'], { ...options, ruleSet: undefined, validate: false })).output as ICruiseResult;
}, 60_000);

describe('docs/architecture.md’s diagram of the layers', () => {
  it('draws boxes and arrows', () => {
    expect(nodes.size).toBeGreaterThan(10);
    expect(arrows.length).toBeGreaterThan(10);
  });

  it('names only modules that exist', () => {
    const modules = graph.modules.map((m) => m.source);
    const empty = [...nodes.keys()].filter((id) => !modules.some((m) => inNode(id, m)));
    expect(empty).toEqual([]);
  });

  it('draws only imports the code makes', () => {
    const missing = arrows.filter(
      ({ from, to }) => !graph.modules.some((m) => inNode(from, m.source) && m.dependencies.some((d) => inNode(to, d.resolved))),
    );
    expect(missing.map(({ from, to }) => `${from} --> ${to}`)).toEqual([]);
  });
});
