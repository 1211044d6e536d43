import type { JwtVerifier } from '../identity/jwt-verifier.js';
import { describeFailure } from '../errors/gateway-error.js';
import type { Refusal } from './refusal.js';
import { isScope, type Caller } from './scopes.js';

// The caller a JWT access token names (identity/ verifies it): its subject, its client, the gateway scopes among
// its scopes, and when it expires. Every token of one subject at one issuer counts as one caller for the
// limits, on every replica, as a key does. A refused token is INVALID_TOKEN, whose 401 names the reason, never the token.

export type Admission = { caller: Caller } | { refusal: Refusal };

export interface TokenCallers {
  admit(token: string): Promise<Admission>;
}

export function createTokenCallers(verifier: JwtVerifier, trustedOnlyClients: ReadonlySet<string>): TokenCallers {
  return {
    async admit(token) {
      const verified = await verifier.verify(token);
      if ('problem' in verified) return { refusal: describeFailure('INVALID_TOKEN', { problem: verified.problem }) };
      const { issuer, subject, client, scopes, expiresAt } = verified.token;
      return {
        caller: {
          name: tokenCallerName(issuer, subject),
          scopes: new Set(scopes.filter(isScope)),
          kind: 'token',
          subject,
          client,
          issuer,
          expiresAt,
          trustedOnly: client !== null && trustedOnlyClients.has(client),
        },
      };
    },
  };
}

/**
 * What a token's caller counts under (limits, caps, upstream lane): its subject at its issuer, since the same
 * subject at two issuers is two people. The subject is percent-encoded, so it holds no `@` and the first `@`
 * ends it: no subject an issuer signs can spell another issuer's caller.
 */
export const tokenCallerName = (issuer: string, subject: string): string => `token:${encodeURIComponent(subject)}@${issuer}`;
