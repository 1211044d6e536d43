import { z } from 'zod';
import { configArea, documented, jsonText, nonNegativeMs, type AreaSettings } from '../shared/config-area.js';

// The identity area's part of the configuration: the OpenID issuers whose JWT access tokens the gateway accepts
// beside its API keys. One issuer is set with the AUTH_JWT_* variables, several (tenants, a migration between
// providers) with AUTH_JWT_ISSUERS as a JSON list of the same fields.

/** What the gateway ever accepts: asymmetric signatures. `none` and HMAC (HS*) are refused whatever is set. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

const algorithms = z
  .array(z.enum(ASYMMETRIC_ALGORITHMS, { message: 'only asymmetric algorithms (RS*, PS*, ES*, EdDSA); none and HS* are always refused' }))
  .min(1);

const commaList = z.string().transform((list) =>
  list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

export const issuerSchema = z.object({
  issuer: z.url(),
  audience: z.string().min(1, 'is required with an issuer'),
  jwksUrl: z.url().optional(),
  algorithms: algorithms.optional(),
  scopeClaim: z.string().min(1).optional(),
});

export type IssuerConfig = z.infer<typeof issuerSchema>;

export const identityArea = configArea({
  title: 'Identity (JWT access tokens)',
  variables: {
    AUTH_JWT_ISSUER: documented(z.url().optional(), {
      description:
        'OpenID issuer whose JWT access tokens are accepted beside API keys; its keys are found by discovery ([docs/identity.md](docs/identity.md))',
      unsetMeans: 'API keys only',
    }),
    AUTH_JWT_AUDIENCE: documented(z.string().min(1).optional(), {
      description: 'the `aud` a token must carry (the API identifier registered at the issuer); required with `AUTH_JWT_ISSUER`',
    }),
    AUTH_JWT_JWKS_URL: documented(z.url().optional(), {
      description: "the issuer's JWKS, to skip OpenID discovery",
      unsetMeans: "discovery's `jwks_uri`",
    }),
    AUTH_JWT_ALGORITHMS: documented(commaList.pipe(algorithms).optional(), {
      description: 'comma-separated signature algorithms accepted; `none` and HS* are refused whatever is set',
      unsetMeans: 'every asymmetric algorithm (RS*, PS*, ES*, EdDSA)',
    }),
    AUTH_JWT_CLOCK_TOLERANCE_S: documented(z.coerce.number().int().min(0).default(0), {
      description:
        'seconds of clock skew allowed on `exp` and `nbf`, and after `exp` before a live connection is closed; `iat` may be ahead by this or 60 s, whichever is larger',
    }),
    AUTH_JWT_SCOPE_CLAIM: documented(z.string().min(1).optional(), {
      description: 'the claim holding the scopes, for an issuer that uses neither `scope` nor `scp`',
      unsetMeans: '`scope` (space-separated) or `scp` (array)',
    }),
    AUTH_JWT_ISSUERS: documented(jsonText.pipe(z.array(issuerSchema).min(1)).optional(), {
      description: 'JSON list of `{issuer, audience, jwksUrl?, algorithms?, scopeClaim?}` for several issuers (with or instead of `AUTH_JWT_ISSUER`)',
    }),
    AUTH_JWT_JWKS_CACHE_MS: documented(nonNegativeMs.default(600_000), {
      description:
        'how long fetched signing keys are used before they are fetched again (`cacheMaxAge`); while the issuer cannot be reached, the keys fetched last keep being used',
    }),
    AUTH_JWT_JWKS_COOLDOWN_MS: documented(nonNegativeMs.default(30_000), {
      description:
        'the least time between two requests to an issuer (discovery or JWKS), however the last one ended: a token with an unknown `kid`, keys past their cache age or a failing issuer cause at most one per cool-down (`cooldownDuration`)',
    }),
    AUTH_TRUSTED_ONLY_CLIENTS: documented(commaList.optional(), {
      description: 'comma-separated `client_id`/`azp` values that may run only the `TRUSTED_DOCUMENTS` operations',
      unsetMeans: 'every token client runs any document',
    }),
  },
  rules({ values, missing }) {
    const problems: string[] = [];
    if (!missing('AUTH_JWT_ISSUER') && missing('AUTH_JWT_AUDIENCE')) {
      problems.push('AUTH_JWT_AUDIENCE is required with AUTH_JWT_ISSUER: without it a token minted for another API would be accepted');
    }
    if (missing('AUTH_JWT_ISSUER')) {
      for (const name of ['AUTH_JWT_AUDIENCE', 'AUTH_JWT_JWKS_URL', 'AUTH_JWT_ALGORITHMS', 'AUTH_JWT_SCOPE_CLAIM'] as const) {
        if (!missing(name)) problems.push(`${name} is set without AUTH_JWT_ISSUER: set the issuer too`);
      }
    }
    const issuers = [values.AUTH_JWT_ISSUER, ...(values.AUTH_JWT_ISSUERS ?? []).map((i) => i.issuer)].filter(Boolean);
    if (new Set(issuers).size !== issuers.length) problems.push('AUTH_JWT_ISSUERS repeats an issuer');
    return problems;
  },
});

export type IdentitySettings = AreaSettings<typeof identityArea>;

/** Every configured issuer, the single-issuer variables first. */
export function configuredIssuers(
  values: Pick<
    IdentitySettings,
    'AUTH_JWT_ISSUER' | 'AUTH_JWT_AUDIENCE' | 'AUTH_JWT_JWKS_URL' | 'AUTH_JWT_ALGORITHMS' | 'AUTH_JWT_SCOPE_CLAIM' | 'AUTH_JWT_ISSUERS'
  >,
): IssuerConfig[] {
  const single: IssuerConfig[] =
    values.AUTH_JWT_ISSUER && values.AUTH_JWT_AUDIENCE
      ? [
          {
            issuer: values.AUTH_JWT_ISSUER,
            audience: values.AUTH_JWT_AUDIENCE,
            jwksUrl: values.AUTH_JWT_JWKS_URL,
            algorithms: values.AUTH_JWT_ALGORITHMS,
            scopeClaim: values.AUTH_JWT_SCOPE_CLAIM,
          },
        ]
      : [];
  return [...single, ...(values.AUTH_JWT_ISSUERS ?? [])];
}
