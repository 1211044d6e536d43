// @ts-check
// The layers of src/ and the directions imports may take between them, checked by `npm run lint`
// (dependency-cruiser). docs/architecture.md#layers draws the same picture: change both together.
//
// A group may import its own modules and the groups of lower levels, never a group of its own level. Type-only
// imports count like any other: a type that must be imported from above belongs lower. A module of src/ in no
// group fails too, so a new folder is placed on purpose.

/** The whole configuration, composed of every area's settings: on top, read by the entry alone (its rule below). */
const CONFIG = '^src/config\\.ts$';
/**
 * An area's settings (its environment variables, declared with zod), composed by src/config.ts; the sandbox's is
 * its own. Each is also a module of its folder, and a level of its own below every area: it imports nothing but
 * src/shared/config-area.ts and small modules of its folder (AREA_CONFIG_RULE), so any module may type what it
 * reads from any area's settings.
 */
const AREA_CONFIG = '^src/(?!sandbox/)([^/]+)/config\\.ts$';
const AREA_CONFIG_RULE = "an area's config reads no other area";
// The sandbox has its own rules below, and one mistake should read as one violation.
const SANDBOX = '^src/sandbox/';

/** @typedef {{ name: string, level: number, path: string, pathNot?: string[], importsRuledBy?: string }} Group */
/** @type {Group[]} From the top down: the request's path from the process entry to the base. */
const GROUPS = [
  { name: 'src/main.ts', level: 13, path: '^src/main\\.ts$' },
  // The composition root: builds every area from the configuration, wires them together and undoes them at stop.
  { name: 'src/app.ts', level: 12, path: '^src/app\\.ts$' },
  { name: 'src/config.ts', level: 11.5, path: CONFIG },
  // What a request meets before and after yoga, on every transport, and the Node server that serves it.
  { name: 'edge/', level: 11, path: '^src/edge/' },
  // Agents' entry (MCP): tools made of the trusted operations and checked against the schema, each call run
  // through the edge's yoga, which app.ts hands it.
  { name: 'mcp/', level: 10.5, path: '^src/mcp/' },
  { name: 'schema/', level: 10, path: '^src/schema/' },
  { name: 'security/', level: 7, path: '^src/security/' },
  { name: 'ops/', level: 7, path: '^src/ops/' },
  { name: 'live/', level: 6, path: '^src/live/' },
  { name: 'webhooks/', level: 6, path: '^src/webhooks/' },
  // A request's context gathers every area a resolver may reach, so it sits above them all but the schema.
  { name: 'graph/context.ts', level: 9, path: '^src/graph/context\\.ts$' },
  { name: 'orders/', level: 4, path: '^src/orders/' },
  // The loaders (and page sizes) resolvers and the order rules read through: below the rules, above the cache.
  { name: 'graph/ (loaders, page sizes)', level: 3.5, path: '^src/graph/(?!context\\.ts$)' },
  { name: 'catalog/', level: 3, path: '^src/catalog/' },
  { name: 'cache/', level: 3, path: '^src/cache/' },
  { name: 'identity/', level: 3, path: '^src/identity/' },
  { name: 'upstream/', level: 2, path: '^src/upstream/' },
  { name: 'cluster/', level: 1, path: '^src/cluster/' },
  // Tracing: the SDK's start (loaded only when on) and the gateway's spans on @opentelemetry/api, which every
  // layer above may record into.
  { name: 'telemetry/', level: 1, path: '^src/telemetry/' },
  // The one redactor: logs, errors, /metrics and the upstream's text pass through it.
  { name: 'redaction/', level: 1, path: '^src/redaction/' },
  { name: "an area's config.ts", level: -0.5, path: AREA_CONFIG, importsRuledBy: AREA_CONFIG_RULE },
  { name: 'shared/', level: -1, path: '^src/shared/' },
  // The failure catalogue: every layer raises its errors from it, and it imports nothing of the gateway.
  { name: 'errors/', level: -1, path: '^src/errors/' },
];

/**
 * @param {Group} group
 * @returns {import('dependency-cruiser').IForbiddenRuleType}
 */
function layerRule(group) {
  const lower = GROUPS.filter((g) => g.level < group.level);
  const allowed = lower.map((g) => g.name);
  return {
    name: `layer ${group.name}`,
    severity: 'error',
    comment:
      `${group.name} may import only its own modules and ${allowed.join(', ') || 'nothing else'}. ` +
      'Move what both modules need down to a layer both may import (the lower folder, src/shared/ or a base ' +
      'module), or invert it: take it as a parameter, or state the few fields used as a local type.',
    from: { path: group.path, pathNot: group.pathNot ?? [] },
    // The sandbox and src/config.ts have their own rules below, and one mistake should read as one violation.
    to: { path: '^src/', pathNot: [group.path, ...lower.map((g) => g.path), SANDBOX, CONFIG] },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...GROUPS.filter((group) => !group.importsRuledBy).map(layerRule),
    {
      name: 'in a layer',
      severity: 'error',
      comment:
        'This module of src/ belongs to no layer. Add its folder to GROUPS in .dependency-cruiser.mjs at the level ' +
        'of what it imports and what imports it, and to docs/architecture.md#layers.',
      from: { path: '^src/', pathNot: [...GROUPS.map((g) => g.path), SANDBOX] },
      to: {},
    },
    {
      name: AREA_CONFIG_RULE,
      severity: 'error',
      comment:
        "An area's config.ts declares its own variables with zod and src/shared/config-area.ts, and may import small modules " +
        "of its own folder, nothing else of src/. A rule that needs another area's variable gets what it needs from " +
        'Deployment (config-area.ts), which src/config.ts fills in; or it belongs to src/config.ts itself.',
      from: { path: AREA_CONFIG },
      to: { path: '^src/', pathNot: ['^src/$1/', '^src/shared/config-area\\.ts$'] },
    },
    {
      name: 'areas never import src/config.ts',
      severity: 'error',
      comment:
        "src/config.ts composes every area's settings for the entry (src/main.ts, src/app.ts), which passes the whole " +
        "configuration on. Type what a module reads from the areas' own settings instead: SecuritySettings of " +
        'security/config.ts, ProcessSettings & SecuritySettings for two areas, a Pick<> of one for a few fields. The whole ' +
        'configuration holds every area, so the callers pass it unchanged.',
      from: { path: '^src/[^/]+/', pathNot: [SANDBOX] },
      to: { path: CONFIG },
    },
    {
      name: 'entry points stay on top',
      severity: 'error',
      comment:
        'Nothing imports src/main.ts, only main.ts imports src/app.ts, and only app.ts imports src/edge/server.ts ' +
        '(tests, bench and scripts may). Move what you need out of it into the module that owns it and import that.',
      from: { path: '^src/', pathNot: ['^src/(main|app)\\.ts$', SANDBOX] },
      to: { path: '^src/(main|app|edge/server)\\.ts$' },
    },
    {
      name: 'main gets the gateway from app.ts',
      severity: 'error',
      comment:
        'src/app.ts wires what the Node server of src/edge/server.ts serves; main.ts starts and stops the gateway ' +
        'app.ts returns, not the server itself.',
      from: { path: '^src/main\\.ts$' },
      to: { path: '^src/edge/server\\.ts$' },
    },
    {
      name: 'the sandbox imports no gateway',
      severity: 'error',
      comment:
        'The sandbox stands in for the reward API and imports nothing of the gateway. Use src/shared/ for what ' +
        'both truly share (it imports nothing else of src/), or give the sandbox its own code.',
      from: { path: SANDBOX },
      to: { path: '^src/', pathNot: [SANDBOX, '^src/shared/'] },
    },
    {
      name: 'the gateway imports no sandbox',
      severity: 'error',
      comment:
        'The gateway talks to the sandbox over HTTP like to the reward API; only src/main.ts starts it, through ' +
        'src/sandbox/index.ts. Tests may import the sandbox directly.',
      from: { path: '^src/', pathNot: [SANDBOX, '^src/main\\.ts$'] },
      to: { path: SANDBOX },
    },
    {
      name: 'main starts the sandbox through its index',
      severity: 'error',
      comment: 'src/main.ts starts the embedded sandbox with startSandbox from src/sandbox/index.ts, nothing else of it.',
      from: { path: '^src/main\\.ts$' },
      to: { path: SANDBOX, pathNot: '^src/sandbox/index\\.ts$' },
    },
    {
      name: 'ioredis only in cluster/',
      severity: 'error',
      comment:
        'src/cluster/ owns Redis: the connections (redis.ts), key names, scripts, the live store on Redis and the rate ' +
        "limit's counts. Elsewhere use its interfaces (SharedStore in cluster/store.ts, RedisLimits in " +
        'cluster/shared-limits.ts), or add what you need to them.',
      from: { path: '^src/', pathNot: '^src/cluster/' },
      to: { path: '(^|/)node_modules/ioredis/' },
    },
    {
      name: 'schema reads upstream shapes only',
      severity: 'error',
      comment:
        "Resolvers reach the reward API through the context (loaders, client), never through the client's " +
        'modules: import shapes from upstream/types.ts and errors from upstream/errors.ts.',
      from: { path: '^src/schema/' },
      to: { path: '^src/upstream/', pathNot: '^src/upstream/(types|errors)\\.ts$' },
    },
    {
      name: 'upstream internals stay inside',
      severity: 'error',
      comment:
        'Outside upstream/, use its surface: types.ts, errors.ts, scope.ts, call-event.ts, gift-pages.ts, ' +
        'path-segment.ts, config.ts (settings) and from-config.ts (composition only). Export what you need from one of those.',
      from: { path: '^src/', pathNot: ['^src/upstream/', SANDBOX] },
      to: {
        path: '^src/upstream/',
        pathNot: '^src/upstream/(types|errors|scope|call-event|gift-pages|path-segment|config|client|from-config)\\.ts$',
      },
    },
    {
      name: 'only the composition creates the upstream client',
      severity: 'error',
      comment:
        'createUpstreamClient is called once, by src/upstream/from-config.ts; everything else gets the client ' +
        '(an UpstreamClient from upstream/types.ts) passed in or from the context.',
      from: { path: '^src/', pathNot: ['^src/upstream/', SANDBOX] },
      to: { path: '^src/upstream/client\\.ts$' },
    },
    {
      name: 'schema types never import schema/index.ts',
      severity: 'error',
      comment:
        'schema/index.ts only imports the type files and builds the schema (print.ts prints what it built); a type ' +
        'file importing it makes a cycle. Import the other type file, or its objectRef from schema/refs.ts.',
      from: { path: '^src/schema/', pathNot: '^src/schema/(index|print)\\.ts$' },
      to: { path: '^src/schema/index\\.ts$' },
    },
    {
      name: 'no circular imports',
      severity: 'error',
      comment:
        'This import closes a circle. Move what both modules need into a third one both import, or split the ' +
        'module whose two halves are wanted from opposite sides.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no orphans',
      severity: 'error',
      comment:
        'Nothing imports this module and it imports nothing: delete it, or import it where it is meant to be used (declaration files are read by the compiler, not imported).',
      from: { orphan: true, path: '^src/', pathNot: '\\.d\\.ts$' },
      to: {},
    },
    {
      name: 'resolvable',
      severity: 'error',
      comment: 'This import resolves to no file: fix the path (with its .js ending) or add the package to package.json.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'declared packages only',
      severity: 'error',
      comment: 'This package is not in package.json: add it to dependencies (src/ runs in production).',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'no dev dependencies at run time',
      severity: 'error',
      comment:
        'Production installs with npm ci --omit=dev: a package src/ imports at run time belongs in dependencies. ' +
        'Type-only imports of a dev dependency are fine.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no deprecated core modules',
      severity: 'error',
      comment: 'Node deprecated this core module: use its replacement.',
      from: {},
      to: { dependencyTypes: ['core'], path: '^(punycode|domain|constants|sys|_linklist|_stream_wrap)$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are edges of the layers too (they vanish from the JavaScript, not from the design).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // A package's subpaths resolved through its `exports` with Node's conditions, as Node resolves them at run
    // time: @modelcontextprotocol/sdk is imported by subpath (`/server/index.js`) through a wildcard export.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    // Unchanged files are not parsed again (node_modules/.cache/dependency-cruiser; git tells what changed).
    cache: true,
    progress: { type: 'none' },
  },
};
