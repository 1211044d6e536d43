import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { configArea, count, documented, flag, jsonText, type AreaSettings } from '../shared/config-area.js';
import { keyStrengthBits, MIN_KEY_BITS } from './key-strength.js';
import { SCOPES } from './scopes.js';

// The security area's part of the configuration: its environment variables and the shape of GATEWAY_API_KEYS,
// which src/config.ts composes. Kept apart from the keyring (api-keys.ts) and the pipeline that uses it: those
// read the configuration, and the configuration reads only this, so neither imports the other back.

/** RATE_LIMIT_BURST unset: a key's bucket. */
export const KEY_BURST = 40;
/**
 * RATE_LIMIT_BURST unset in keyless development (no keys, no issuers: never production). One developer's tools
 * share an address and send bursts a client in production would not: graphql-http's audit sends its 61
 * requests at once, codegen introspects, a test run starts its workers together. Ten keys' bursts let several
 * such runs go back to back; the rate stays production's, so a sustained local flood is still refused.
 */
export const KEYLESS_BURST = 400;

/** Keys shorter than this are guessable; refusing them at start-up is cheaper than a breach. */
const MIN_KEY_LENGTH = 24;

export const apiKeysSchema = z
  .array(
    z.object({
      name: z
        .string()
        .min(1, 'must not be empty')
        .max(100)
        .refine(
          (name) => !name.startsWith('token:'),
          'must not start with "token:", which names the callers of access tokens (their limits would be shared)',
        ),
      key: z.string().min(MIN_KEY_LENGTH, `must be at least ${MIN_KEY_LENGTH} characters`),
      scopes: z.array(z.enum(SCOPES)).min(1, 'must grant at least one scope'),
      trustedOnly: z.boolean().optional(),
    }),
  )
  .superRefine((keys, ctx) => {
    const names = new Set<string>();
    const secrets = new Set<string>();
    keys.forEach((k, i) => {
      if (names.has(k.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `repeats the name "${k.name}"` });
      if (secrets.has(k.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: 'repeats another key' });
      names.add(k.name);
      secrets.add(k.key);
    });
  });

export type ApiKeyConfig = z.infer<typeof apiKeysSchema>[number];

/** TRUSTED_DOCUMENTS: a file that can be read now and holds a JSON object of hash → document. */
function checkManifest(path: string, ctx: z.RefinementCtx): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    ctx.addIssue({ code: 'custom', message: `${path} cannot be read (${code}): point it at the manifest \`npm run codegen\` writes` });
    return;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `${path} is not JSON: it must be an object of hash → document, as \`npm run codegen\` writes` });
    return;
  }
  const entries = manifest && typeof manifest === 'object' && !Array.isArray(manifest) ? Object.entries(manifest) : null;
  if (!entries || entries.length === 0 || entries.some(([, document]) => typeof document !== 'string' || document === '')) {
    ctx.addIssue({ code: 'custom', message: `${path} must be a non-empty JSON object of hash → document, as \`npm run codegen\` writes` });
  }
}

export const securityArea = configArea({
  title: 'Access and limits',
  variables: {
    GATEWAY_API_KEYS: documented(jsonText.pipe(apiKeysSchema).optional(), {
      description:
        'JSON array of `{name, key, scopes, trustedOnly?}` ([production.md](production.md)); required in production, each key at least 128 bits of randomness (`openssl rand -base64 32`)',
      unsetMeans: 'open on loopback (outside production)',
    }),
    GATEWAY_API_KEYS_FILE: documented(z.string().min(1).optional(), {
      description: 'a file holding the same JSON (a mounted secret), read at start-up; set this or `GATEWAY_API_KEYS`, not both',
    }),
    RATE_LIMIT_PER_SECOND: documented(z.coerce.number().positive().default(20), {
      description:
        'operations per second per API key, the refill rate of its token bucket (`RATE_LIMITED` with `Retry-After`); in cluster mode a shared window of the burst per burst ÷ rate seconds ([docs/cluster.md](docs/cluster.md#rate-limit))',
    }),
    RATE_LIMIT_BURST: documented(count.optional(), {
      description:
        "operations a key (in keyless development: a client address) may send at once before the rate applies (the bucket size); keyless development's default is larger, as one developer's local tools (an audit, codegen, a test run) send bursts",
      unsetMeans: `${KEY_BURST} per key; ${KEYLESS_BURST} per client address in keyless development`,
    }),
    MAX_DEPTH: documented(count.default(12), { description: 'deepest selection an operation may have, checked before execution' }),
    MAX_ALIASES: documented(count.default(20), { description: 'aliases in one operation, checked before execution' }),
    MAX_TOKENS: documented(count.default(3_000), { description: 'tokens in one operation document, counted as it is parsed' }),
    MAX_COST: documented(count.default(25_000), {
      description: 'upstream-weighted cost of an operation: page sizes and list arguments multiply what is below them',
    }),
    MAX_BODY_BYTES: documented(count.default(100_000), {
      description: 'largest request body (413; a POST without Content-Length is refused with 411)',
    }),
    APQ_MAX_DOCUMENTS_PER_CALLER: documented(count.default(200), {
      description:
        'automatic persisted queries one API key or token subject may have registered at once (each for a day after its last registration); past it a document still runs but is not kept',
    }),
    APQ_MAX_BYTES_PER_CALLER: documented(count.default(1_000_000), {
      description: 'bytes of automatic persisted queries one API key or token subject may have registered at once',
    }),
    TRUSTED_DOCUMENTS: documented(z.string().min(1).superRefine(checkManifest).optional(), {
      description: 'path of a manifest of hash → document; when set, only those operations run',
    }),
    CORS_ORIGINS: documented(
      z
        .string()
        .transform((list) =>
          list
            .split(',')
            .map((o) => o.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.url()))
        .optional(),
      { description: 'comma-separated browser origins allowed by CORS', unsetMeans: 'no cross-origin browser access' },
    ),
    INTROSPECTION: documented(flag.optional(), {
      description: 'schema introspection and "did you mean" field suggestions',
      unsetMeans: 'on outside production',
    }),
  },
  rules({ missing, production, values }) {
    if (!production) return [];
    if (missing('GATEWAY_API_KEYS')) return ['GATEWAY_API_KEYS is required in production (or GATEWAY_API_KEYS_FILE): the gateway spends real money'];
    // By name only: the message must not quote a secret. One line whatever the number of keys.
    const weak = (values.GATEWAY_API_KEYS ?? []).filter((k) => keyStrengthBits(k.key) < MIN_KEY_BITS).map((k) => `"${k.name}"`);
    return weak.length === 0
      ? []
      : [
          `GATEWAY_API_KEYS: the key of ${weak.join(', ')} ${weak.length === 1 ? 'is' : 'are'} too weak to be a secret in production ` +
            `(under ${MIN_KEY_BITS} bits of randomness: a date, a word, a name or a sequence counts for little): make each with \`openssl rand -base64 32\``,
        ];
  },
});

export type SecuritySettings = AreaSettings<typeof securityArea>;

/**
 * Whether introspection and field suggestions are served: on by default outside production. NODE_ENV is the
 * process area's, named here rather than imported: an area's config reads no other area.
 */
export function introspectionEnabled(settings: Pick<SecuritySettings, 'INTROSPECTION'> & { NODE_ENV: string }): boolean {
  return settings.INTROSPECTION ?? settings.NODE_ENV !== 'production';
}

/**
 * GATEWAY_API_KEYS_FILE read into GATEWAY_API_KEYS, before the variables are parsed. `unreadable` keeps the rule
 * above from calling GATEWAY_API_KEYS missing when the file was named but could not be read.
 */
export function withApiKeysFile(env: Record<string, string | undefined>): {
  env: Record<string, string | undefined>;
  problems: string[];
  unreadable: boolean;
} {
  const file = env.GATEWAY_API_KEYS_FILE;
  if (!file) return { env, problems: [], unreadable: false };
  if (env.GATEWAY_API_KEYS) return { env, problems: ['set GATEWAY_API_KEYS or GATEWAY_API_KEYS_FILE, not both'], unreadable: false };
  try {
    return { env: { ...env, GATEWAY_API_KEYS: readFileSync(file, 'utf8') }, problems: [], unreadable: false };
  } catch {
    return { env, problems: [`GATEWAY_API_KEYS_FILE ${file} cannot be read`], unreadable: true };
  }
}
