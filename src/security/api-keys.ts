import { hash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyConfig } from './config.js';
import type { Caller, Scope } from './scopes.js';

// Gateway API keys: clients send `Authorization: Bearer <key>`. Keys are kept only as SHA-256 digests and
// compared in constant time against every configured key (no early exit), so neither timing nor a heap dump
// reveals them.

export interface Keyring {
  /** The caller an Authorization header value identifies, or null when it names no configured key. */
  identify(authorization: string | null | undefined): Caller | null;
}

// One-shot hashing: no Hash object per request (every request is identified).
const digest = (value: string) => hash('sha256', value, 'buffer');

export function bearerToken(authorization: string | null | undefined): string | null {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  return match?.[1] ?? null;
}

/**
 * Whether an Authorization value is what a client sends when the variable meant to hold its key holds none:
 * `Bearer undefined`, `Bearer null`, or `Bearer` alone (a client bug, refused in every mode).
 */
export function isPlaceholderBearer(authorization: string | null | undefined): boolean {
  return /^Bearer(?:\s+(?:undefined|null))?$/i.test(authorization?.trim() ?? '');
}

export function createKeyring(keys: ApiKeyConfig[]): Keyring {
  const entries = keys.map((k) => ({
    digest: digest(k.key),
    caller: {
      name: k.name,
      scopes: new Set<Scope>(k.scopes),
      kind: 'key',
      subject: k.name,
      client: null,
      expiresAt: null,
      trustedOnly: k.trustedOnly ?? false,
    } satisfies Caller,
  }));
  return {
    identify(authorization) {
      const token = bearerToken(authorization);
      if (token === null) return null;
      const presented = digest(token);
      let found: Caller | null = null;
      for (const entry of entries) {
        if (timingSafeEqual(entry.digest, presented)) found = entry.caller;
      }
      return found;
    },
  };
}
