import { z } from 'zod';

// What an area of the gateway declares about the environment variables it reads, and the kinds of variable
// those declarations share. src/config.ts composes the areas; an area's config.ts imports this, never another
// area's config, so each area's settings stay its own. Modules type what they read from the areas' settings
// (AreaSettings below), never from src/config.ts: the whole configuration is the entry's, which passes it on.

const PORT_RULE = 'must be an integer from 1 to 65535 (0 lets the system pick a free one)';
/** A port to listen on; 0 lets the system choose. */
export const port = z.coerce.number({ error: PORT_RULE }).int({ error: PORT_RULE }).min(0, { error: PORT_RULE }).max(65_535, { error: PORT_RULE });
/** A duration that must not be zero. */
export const positiveMs = z.coerce.number().int().positive();
/** A duration, where 0 means "not at all" or "at once". */
export const nonNegativeMs = z.coerce.number().int().min(0);
export const count = z.coerce.number().int().positive();
/** Unset is the caller's default; "true"/"1" and "false"/"0" override it. */
export const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
/** A JSON document in an environment variable; the parse error names the variable, never its content. */
export const jsonText = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
    return z.NEVER;
  }
});

/**
 * The documentation of one variable, kept on its schema with zod's `.meta()` so the table of docs/configuration.md is rendered
 * from the code that reads it. `unsetMeans` is for a variable without a zod default: what leaving it unset does.
 */
export interface VariableDocs {
  description: string;
  unsetMeans?: string;
}

export const documented = <T extends z.ZodType>(schema: T, docs: VariableDocs): T => schema.meta({ ...docs });

/** What the rules between variables know of the whole configuration besides their own area's variables. */
export interface Deployment {
  /** NODE_ENV=production. */
  production: boolean;
  /** REWARD_API_URL is unset, so src/main.ts starts the embedded sandbox. */
  embeddedSandbox: boolean;
}

/** What an area's rules see: its variables that parsed on their own. */
export interface RuleInput<Shape extends z.ZodRawShape> extends Deployment {
  values: Partial<z.infer<z.ZodObject<Shape>>>;
  /** Unset, as opposed to set to a value already reported as invalid. */
  missing(name: keyof Shape & string): boolean;
}

export interface ConfigArea<Shape extends z.ZodRawShape> {
  /** The heading of the area's part of the configuration table (docs/configuration.md). */
  title: string;
  variables: Shape;
  /** Problems between variables of the area, one line each naming the variable to change. */
  rules?(input: RuleInput<Shape>): string[];
}

export const configArea = <Shape extends z.ZodRawShape>(area: ConfigArea<Shape>): ConfigArea<Shape> => area;

/**
 * What an area's variables parse to: the settings its modules (and any module reading them) are typed with. The
 * whole configuration holds every area's, so a caller passes it where a function asks for one area or two.
 */
export type AreaSettings<Area> = Area extends ConfigArea<infer Shape> ? z.infer<z.ZodObject<Shape>> : never;
