// The rules of .dependency-cruiser.mjs (`npm run lint` checks src/ with them) refuse what they are meant to
// refuse. A small tree of modules is cruised with them: the allowed imports must give no violation and each
// mistake exactly the rules named beside it. A rule whose path pattern stopped matching would pass on src/
// silently; here it fails.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const configFile = join(dirname(fileURLToPath(import.meta.url)), '..', '.dependency-cruiser.mjs');

/** Module → source: each layer importing below it, and the areas' settings any layer may type from. */
const ALLOWED: Record<string, string> = {
  'src/main.ts': "import './config.js';\nimport './app.js';\nimport './sandbox/index.js';\nimport './upstream/from-config.js';\n",
  'src/app.ts': "import './config.js';\nimport './edge/server.js';\nimport './graph/context.js';\n",
  'src/edge/server.ts': "import '../schema/gift.js';\nimport '../graph/context.js';\n",
  'src/graph/context.ts': "import '../live/feed.js';\nimport './loaders.js';\n",
  'src/graph/loaders.ts': "import '../upstream/types.js';\n",
  'src/upstream/from-config.ts': "import './client.js';\n",
  'src/schema/gift.ts': "import type {} from '../upstream/types.js';\nimport '../orders/rules.js';\nimport '../live/feed.js';\n",
  'src/orders/rules.ts': "import '../shared/time.js';\nimport '../upstream/path-segment.js';\nimport '../graph/loaders.js';\n",
  'src/orders/reward-state.ts': "import type {} from '../upstream/types.js';\n",
  'src/live/feed.ts': "import '../orders/reward-state.js';\nimport '../cluster/redis.js';\n",
  // Any layer may type what it reads from any area's settings, however high the area.
  'src/cluster/redis.ts': "import type {} from '../security/config.js';\nimport 'ioredis';\n",
  'src/config.ts': "import './security/config.js';\nimport './live/config.js';\n",
  'src/shared/config-area.ts': 'export {};\n',
  'src/security/config.ts': "import './scopes.js';\nimport '../shared/config-area.js';\n",
  'src/security/scopes.ts': 'export {};\n',
  'src/upstream/client.ts': "import './types.js';\n",
  'src/upstream/types.ts': "import type {} from '../shared/time.js';\n",
  'src/upstream/path-segment.ts': 'export {};\n',
  'src/shared/time.ts': 'export {};\n',
  'src/sandbox/index.ts': "import '../shared/time.js';\n",
  'src/schema/index.ts': "import './gift.js';\nimport './brand.js';\n",
};

/** Module → its source, the rules it must break, and modules it needs `with` it. */
const MISTAKES: Record<string, { source: string; rules: string[]; with?: Record<string, string> }> = {
  'src/sandbox/fake-client.ts': { source: "import '../upstream/client.js';\n", rules: ['the sandbox imports no gateway'] },
  'src/orders/pacing.ts': { source: "import '../sandbox/index.js';\n", rules: ['the gateway imports no sandbox'] },
  'src/upstream/wrong-way.ts': { source: "import type {} from '../orders/rules.js';\n", rules: ['layer upstream/'] },
  'src/ops/drain.ts': { source: "import '../edge/server.js';\n", rules: ['entry points stay on top', 'layer ops/'] },
  'src/edge/http-entry.ts': { source: "import '../app.js';\n", rules: ['entry points stay on top', 'layer edge/'] },
  'src/graph/page-size.ts': { source: "import './context.js';\n", rules: ['layer graph/ (loaders, page sizes)'] },
  'src/webhooks/subscriptions.ts': { source: "import '../graph/context.js';\n", rules: ['layer webhooks/'] },
  'src/schema/brand.ts': {
    source: "import '../upstream/client.js';\nimport './index.js';\n",
    rules: [
      'no circular imports',
      'only the composition creates the upstream client',
      'schema reads upstream shapes only',
      'schema types never import schema/index.ts',
    ],
  },
  'src/shared/a.ts': { source: "import './b.js';\n", rules: ['no circular imports'], with: { 'src/shared/b.ts': "import './a.js';\n" } },
  'src/billing/queue.ts': { source: "import '../shared/time.js';\n", rules: ['in a layer'] },
  'src/live/config.ts': {
    source: "import '../upstream/config.js';\nimport '../upstream/path-segment.js';\n",
    rules: ["an area's config reads no other area"],
    with: { 'src/upstream/config.ts': 'export {};\n' },
  },
  'src/ops/logger.ts': { source: "import type {} from '../config.js';\n", rules: ['areas never import src/config.ts'] },
  'src/security/forgotten.ts': { source: 'export {};\n', rules: ['no orphans'] },
  'src/catalog/cache.ts': { source: "import './missing.js';\n", rules: ['resolvable'] },
  'src/live/redis-client.ts': { source: "import 'ioredis';\n", rules: ['ioredis only in cluster/'] },
};

let root: string;
let result: ICruiseResult;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'layers-'));
  // Redis's client as a package of the tree, so an import of it resolves as in the gateway.
  const tree: Record<string, string> = {
    ...ALLOWED,
    'package.json': JSON.stringify({ name: 'layers', dependencies: { ioredis: '*' } }),
    'node_modules/ioredis/package.json': JSON.stringify({ name: 'ioredis', main: 'index.js' }),
    'node_modules/ioredis/index.js': 'module.exports = {};\n',
  };
  for (const [path, mistake] of Object.entries(MISTAKES)) Object.assign(tree, { [path]: mistake.source }, mistake.with);
  for (const [path, source] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  // The tree has no tsconfig.json of its own, and a cache would outlive it.
  const options = { ...(await extractDepcruiseOptions(configFile)), baseDir: root, cache: false };
  delete options.tsConfig;
  result = (await cruise(['src'], options)).output as ICruiseResult;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const rulesBrokenBy = (path: string) => [...new Set(result.summary.violations.filter((v) => v.from === path).map((v) => v.rule.name))].sort();

describe('the layer rules', () => {
  it('let each layer import the layers below it and the peers they name', () => {
    expect(Object.keys(ALLOWED).flatMap((path) => rulesBrokenBy(path).map((rule) => `${path}: ${rule}`))).toEqual([]);
  });

  it.each(Object.entries(MISTAKES))('refuse %s', (path, { rules }) => {
    expect(rulesBrokenBy(path)).toEqual([...rules].sort());
  });
});
