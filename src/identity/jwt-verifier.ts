import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { ASYMMETRIC_ALGORITHMS, type IssuerConfig } from './config.js';
import { issuerKeys, IssuerUnreachable } from './issuer-keys.js';
import type { TokenProblem } from '../errors/catalogue.js';

// JWT access tokens from the configured OpenID issuers, verified with `jose` (signature, iss, aud, exp, nbf, typ
// where the issuer sets one), and here what jose leaves open: `iat` not ahead of the clock beyond the skew, and
// `sub` a string. Each issuer's keys come from issuer-keys.ts: cached, fetched again for a rotated-in `kid`,
// kept while the issuer is unreachable, and the issuer asked at most once per cool-down whatever the traffic.

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
  const keys = issuerKeys(config, options);
  return {
    async verify(token: string): Promise<Verification> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys.getKey, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...(config.algorithms ?? ASYMMETRIC_ALGORITHMS)],
          clockTolerance: options.clockToleranceSeconds,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        return { problem: problemOf(error) };
      }
      return verifiedToken(config, payload, options.clockToleranceSeconds);
    },
    state: (): IssuerState => ({ issuer: config.issuer, keys: keys.state() }),
  };
}

function problemOf(error: unknown): TokenProblem {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'wrong-audience';
    if (error.claim === 'iss') return 'unknown-issuer';
    if (error.claim === 'nbf') return 'not-yet-valid';
    return 'malformed';
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad-signature';
  if (error instanceof errors.JWKSNoMatchingKey) return 'unknown-key';
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'algorithm';
  if (error instanceof IssuerUnreachable) return 'issuer-unreachable';
  return 'malformed';
}

/**
 * How far ahead of the gateway's clock a token's `iat` may be (or AUTH_JWT_CLOCK_TOLERANCE_S, if larger): an
 * issuer's clock a little ahead must not refuse the token it just minted, and 60 s is Spring Security's default
 * skew. A token issued further ahead is one minted for later, which its `nbf` would say.
 */
const IAT_SKEW_S = 60;

function verifiedToken(config: IssuerConfig, payload: JWTPayload, clockToleranceSeconds: number): Verification {
  // jose checks `iat` is a number, and against the clock only with a maxTokenAge, which access tokens have no use for.
  if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + Math.max(IAT_SKEW_S, clockToleranceSeconds)) {
    return { problem: 'issued-in-future' };
  }
  // jose types `sub` as a string but does not check it: 123 or true would become the subject "123" or "true".
  const sub: unknown = payload.sub;
  if (sub !== undefined && typeof sub !== 'string') return { problem: 'bad-subject' };
  const client = [payload.client_id, payload.azp].find((value): value is string => typeof value === 'string') ?? null;
  const subject = sub ?? client;
  // A caller is its subject (limits, caps, webhook endpoints): without one, every such token would be the same.
  if (!subject) return { problem: 'no-subject' };
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
