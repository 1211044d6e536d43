import { z } from 'zod';
import { cacheArea } from './cache/config.js';
import { catalogArea } from './catalog/config.js';
import { clusterArea } from './cluster/config.js';
import type { ConfigArea, Deployment, VariableDocs } from './shared/config-area.js';
import { identityArea } from './identity/config.js';
import { liveArea, withLeaseDefault } from './live/config.js';
import { mcpArea } from './mcp/config.js';
import { connectionsArea, processArea } from './ops/config.js';
import { securityArea, withApiKeysFile } from './security/config.js';
import { telemetryArea } from './telemetry/config.js';
import { upstreamArea } from './upstream/config.js';
import { webhooksArea } from './webhooks/config.js';

// Every environment variable the gateway reads, composed from the areas that own them, so a misconfiguration
// fails at start-up with every problem listed at once rather than at the first request. Each area declares its
// variables (with their defaults and documentation) and the rules between them in its own config.ts; this
// module only puts them together, and renders them as the configuration table of docs/configuration.md.
// Only the entry reads the whole configuration and passes it on; an area types what it reads from the areas'
// settings (AreaSettings of src/shared/config-area.ts), of which Config is the superset.

/** In the order docs/configuration.md lists them. */
const AREAS = [
  processArea,
  upstreamArea,
  cacheArea,
  catalogArea,
  securityArea,
  identityArea,
  liveArea,
  webhooksArea,
  mcpArea,
  clusterArea,
  connectionsArea,
  telemetryArea,
] as const;

const configSchema = z.object({
  ...processArea.variables,
  ...upstreamArea.variables,
  ...cacheArea.variables,
  ...catalogArea.variables,
  ...securityArea.variables,
  ...identityArea.variables,
  ...liveArea.variables,
  ...webhooksArea.variables,
  ...mcpArea.variables,
  ...clusterArea.variables,
  ...connectionsArea.variables,
  ...telemetryArea.variables,
});

/** LIVE_LEASE_MS is filled in by loadConfig when unset: it defaults to three poll intervals. */
export type Config = ReturnType<typeof withLeaseDefault<z.infer<typeof configSchema>>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    // One problem is one line (what a newcomer sees most); several are a list.
    super(problems.length === 1 ? `Invalid configuration: ${problems[0]}` : `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset" (docker-compose and CI often pass VAR= for absent values).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const withKeys = withApiKeysFile(present);
  const problems = [...withKeys.problems];
  const invalid = new Set<string>(withKeys.unreadable ? ['GATEWAY_API_KEYS'] : []);
  const parsed = configSchema.safeParse(withKeys.env);
  const issues = parsed.success ? [] : parsed.error.issues;
  problems.push(...issues.map((issue) => `${issue.path.join('.') || 'environment'} ${issue.message}`));
  for (const issue of issues) invalid.add(String(issue.path[0]));
  const values: Partial<Config> = parsed.success ? parsed.data : validFields(withKeys.env, invalid);
  problems.push(...crossFieldProblems(values, invalid));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return withLeaseDefault(parsed.data);
}

/** Each variable parsed on its own, leaving out the invalid ones, for the rules between variables. */
function validFields(present: Record<string, string | undefined>, invalid: ReadonlySet<string>): Partial<Config> {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    if (invalid.has(name)) continue;
    const result = field.safeParse(present[name]);
    if (result.success) values[name] = result.data;
  }
  return values as Partial<Config>;
}

/**
 * The rules of every area. They run on every variable that parsed on its own, even when others did not, so a
 * start-up lists every problem at once (a zod refinement on the object would wait until all fields are valid).
 */
function crossFieldProblems(values: Partial<Config>, invalid: ReadonlySet<string>): string[] {
  const deployment: Deployment = {
    production: (values.NODE_ENV ?? 'development') === 'production',
    embeddedSandbox: !values.REWARD_API_URL,
  };
  const missing = (name: string) => (values as Record<string, unknown>)[name] === undefined && !invalid.has(name);
  // Each area sees the whole of `values` typed as its own part, which it is a superset of.
  return (AREAS as readonly ConfigArea<z.ZodRawShape>[]).flatMap((area) => area.rules?.({ ...deployment, values, missing }) ?? []);
}

/** The configuration table of docs/configuration.md: one table per area, every variable with its default and meaning. */
export function configurationTable(): string {
  return AREAS.map((area) => {
    const rows = Object.entries(area.variables as z.ZodRawShape).map(([name, schema]) => {
      const docs = z.globalRegistry.get(schema) as Partial<VariableDocs> | undefined;
      if (!docs?.description) throw new Error(`${name} has no description: declare it with documented() in its area's config.ts`);
      return `| \`${name}\` | ${cell(defaultOf(schema, docs))} | ${cell(docs.description)} |`;
    });
    return [`**${area.title}**`, '', '| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
  }).join('\n\n');
}

function defaultOf(schema: z.core.$ZodType, docs: Partial<VariableDocs>): string {
  if (!(schema instanceof z.ZodDefault)) return docs.unsetMeans ?? 'unset';
  const value: unknown = schema.def.defaultValue;
  return typeof value === 'string' ? `\`${value}\`` : String(value);
}

const cell = (text: string) => text.replaceAll('|', '\\|');
