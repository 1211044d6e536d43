import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { ASYMMETRIC_ALGORITHMS, type IssuerConfig } from './config.js';
import type { TokenProblem } from '../errors/catalogue.js';

// JWT access tokens from the configured OpenID issuers, verified with `jose` (signature, iss, aud, exp, nbf, iat,
// typ where the issuer sets one). Each issuer's keys are fetched once and cached (`cacheMaxAge`, default 10
// minutes); a token whose `kid` is unknown makes jose fetch again, at most once per `cooldownDuration` (default
// 30 s), so a flood of made-up kids costs the issuer a handful of fetches, and a key the issuer rotates in is
// accepted without a restart. While the issuer is unreachable, tokens signed by the cached keys keep working.

/** A header or token over this is refused before it is parsed (issuers' access tokens are 1–2 KB). */
export const MAX_TOKEN_BYTES = 8 * 1024;

/** What a verified token says of its bearer. */
export interface VerifiedToken {
  issuer: string;
  /** `sub`, else the client for a machine token. */
  subject: string;
  /** `client_id` or `azp`, when the token names one. */
  client: string | null;
  /** The scope strings the token carries (`scope`, `scp` or the issuer's scope claim). */
  scopes: string[];
  /** `exp` in epoch milliseconds. */
  expiresAt: number;
}

export type Verification = { token: VerifiedToken } | { problem: TokenProblem };

/** The state of an issuer's keys for /ready. */
export interface IssuerState {
  issuer: string;
  /** Keys fetched and usable; `stale` when the last refresh failed or they are past cacheMaxAge. */
  keys: 'none' | 'fresh' | 'stale';
}

export interface JwtVerifier {
  verify(token: string): Promise<Verification>;
  states(): IssuerState[];
}

/** Three dot-separated base64url parts: what a bearer value must look like to be treated as a JWT, not a key. */
export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value) && value.startsWith('eyJ');
}

const ACCESS_TOKEN_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt']);

interface Options {
  clockToleranceSeconds: number;
  cacheMaxAgeMs: number;
  cooldownMs: number;
  /** Defaults to the global fetch (discovery). */
  fetch?: typeof fetch;
}

export function createJwtVerifier(issuers: readonly IssuerConfig[], options: Options): JwtVerifier {
  const entries = new Map(issuers.map((config) => [config.issuer, issuerEntry(config, options)]));
  return {
    async verify(token) {
      if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) return { problem: 'too-large' };
      let issuer: unknown;
      let header;
      try {
        header = decodeProtectedHeader(token);
        issuer = decodeJwt(token).iss;
      } catch {
        return { problem: 'malformed' };
      }
      const { alg, typ } = header;
      // An issuer that types its tokens types access tokens at+jwt (RFC 9068): an ID token is not one.
      if (typ !== undefined && !ACCESS_TOKEN_TYPES.has(typ.toLowerCase())) return { problem: 'malformed' };
      if (typeof alg !== 'string' || !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) return { problem: 'algorithm' };
      const entry = typeof issuer === 'string' ? entries.get(issuer) : undefined;
      if (!entry) return { problem: 'unknown-issuer' };
      return entry.verify(token);
    },
    states: () => [...entries.values()].map((entry) => entry.state()),
  };
}

function issuerEntry(config: IssuerConfig, options: Options) {
  const doFetch = options.fetch ?? fetch;
  let keySet: ReturnType<typeof createRemoteJWKSet> | null = null;
  let pending: Promise<ReturnType<typeof createRemoteJWKSet>> | null = null;
  let lastRefreshFailed = false;

  // Discovery runs once; a failure is forgotten so the next token tries again.
  const keys = () => {
    if (keySet) return Promise.resolve(keySet);
    pending ??= jwksUrlOf(config, doFetch).then(
      (url) =>
        (keySet = createRemoteJWKSet(url, { cacheMaxAge: options.cacheMaxAgeMs, cooldownDuration: options.cooldownMs, timeoutDuration: 5_000 })),
      (error: unknown) => {
        pending = null;
        throw error;
      },
    );
    return pending;
  };

  return {
    async verify(token: string): Promise<Verification> {
      let jwks;
      try {
        jwks = await keys();
      } catch {
        return { problem: 'issuer-unreachable' };
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...(config.algorithms ?? ASYMMETRIC_ALGORITHMS)],
          clockTolerance: options.clockToleranceSeconds,
          requiredClaims: ['exp'],
        }));
        lastRefreshFailed = false;
      } catch (error) {
        const problem = problemOf(error);
        if (problem === 'issuer-unreachable') lastRefreshFailed = true;
        return { problem };
      }
      // A caller is its subject (limits, caps, webhook endpoints): without one, every such token would be the same.
      return verifiedToken(config, payload) ?? { problem: 'no-subject' };
    },
    state(): IssuerState {
      if (!keySet?.jwks()) return { issuer: config.issuer, keys: 'none' };
      return { issuer: config.issuer, keys: lastRefreshFailed || !keySet.fresh ? 'stale' : 'fresh' };
    },
  };
}

async function jwksUrlOf(config: IssuerConfig, doFetch: typeof fetch): Promise<URL> {
  if (config.jwksUrl) return new URL(config.jwksUrl);
  const response = await doFetch(new URL('.well-known/openid-configuration', config.issuer.endsWith('/') ? config.issuer : `${config.issuer}/`), {
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const { jwks_uri } = (await response.json()) as { jwks_uri?: unknown };
  if (typeof jwks_uri !== 'string') throw new Error('discovery names no jwks_uri');
  return new URL(jwks_uri);
}

function problemOf(error: unknown): TokenProblem {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'wrong-audience';
    if (error.claim === 'iss') return 'unknown-issuer';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not-yet-valid';
    return 'malformed';
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad-signature';
  if (error instanceof errors.JWKSNoMatchingKey) return 'unknown-key';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'algorithm';
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return 'issuer-unreachable';
  if (error instanceof errors.JOSEError) return 'malformed';
  // A fetch that failed (connection refused, reset) before any key was cached.
  return 'issuer-unreachable';
}

function verifiedToken(config: IssuerConfig, payload: JWTPayload): { token: VerifiedToken } | null {
  const client = [payload.client_id, payload.azp].find((value): value is string => typeof value === 'string') ?? null;
  const subject = payload.sub ?? client;
  if (!subject) return null;
  return {
    token: {
      issuer: config.issuer,
      subject,
      client,
      scopes: scopesOf(payload, config.scopeClaim),
      expiresAt: payload.exp! * 1000,
    },
  };
}

function scopesOf(payload: JWTPayload, claim: string | undefined): string[] {
  const values = claim ? [payload[claim]] : [payload.scope, payload.scp];
  return values
    .flatMap((value) =>
      typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [],
    )
    .filter(Boolean);
}
