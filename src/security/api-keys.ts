import { hash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { SCOPES, type Caller, type Scope } from './scopes.js';

// Gateway API keys: clients send `Authorization: Bearer <key>`. Keys are kept only as SHA-256 digests and
// compared in constant time against every configured key (no early exit), so neither timing nor a heap dump
// reveals them.

/** Keys shorter than this are guessable; refusing them at start-up is cheaper than a breach. */
const MIN_KEY_LENGTH = 24;

export const apiKeysSchema = z
  .array(
    z.object({
      name: z.string().min(1, 'must not be empty').max(100),
      key: z.string().min(MIN_KEY_LENGTH, `must be at least ${MIN_KEY_LENGTH} characters`),
      scopes: z.array(z.enum(SCOPES)).min(1, 'must grant at least one scope'),
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

export function createKeyring(keys: ApiKeyConfig[]): Keyring {
  const entries = keys.map((k) => ({ digest: digest(k.key), caller: { name: k.name, scopes: new Set<Scope>(k.scopes) } }));
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
