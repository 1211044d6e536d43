import { configuredIssuers, type IdentitySettings } from '../identity/config.js';
import { createJwtVerifier, type IssuerState } from '../identity/jwt-verifier.js';
import { createTokenCallers, type TokenCallers } from './token-callers.js';

// The OpenID issuers of AUTH_JWT_* assembled for the access pipeline: the token callers authentication admits
// beside API keys, the clients held to trusted documents, and the issuers' state for /ready.

export interface Identity {
  tokens: TokenCallers;
  trustedOnlyClients: ReadonlySet<string>;
  /** Whether each issuer's signing keys are fetched and fresh. */
  issuers(): IssuerState[];
}

/** null when no issuer is configured: API keys only. */
export function createIdentity(config: IdentitySettings): Identity | null {
  const issuers = configuredIssuers(config);
  if (issuers.length === 0) return null;
  const verifier = createJwtVerifier(issuers, {
    clockToleranceSeconds: config.AUTH_JWT_CLOCK_TOLERANCE_S,
    cacheMaxAgeMs: config.AUTH_JWT_JWKS_CACHE_MS,
    cooldownMs: config.AUTH_JWT_JWKS_COOLDOWN_MS,
  });
  const trustedOnlyClients = new Set(config.AUTH_TRUSTED_ONLY_CLIENTS ?? []);
  return { tokens: createTokenCallers(verifier, trustedOnlyClients), trustedOnlyClients, issuers: verifier.states };
}
