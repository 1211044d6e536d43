// What a gateway API key may do. Reads of rewards and the catalog, writes that create, resend or cancel
// (spending money), and reads and top-ups of the balance are separate so a dashboard key cannot spend.
// Webhook endpoints are read and managed under scopes of their own: registering one also needs the scopes of
// the subscription it delivers, checked at registration.

export const SCOPES = ['rewards:read', 'rewards:write', 'funds:read', 'funds:write', 'webhooks:read', 'webhooks:write'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Who is calling and what they may do: an API key (by its name, never the key itself) or the subject of a JWT
 * access token. `name` is what per-caller limits count under (rate, watches, subscriptions, upstream lane):
 * the key's name, or `token:<subject>@<issuer>` for every token of one subject at one issuer (token-callers.ts),
 * on every replica.
 */
export interface Caller {
  name: string;
  scopes: ReadonlySet<Scope>;
  /** Absent for the development caller and defence in depth's nobody. */
  kind?: 'key' | 'token';
  /** The key's name, or the token's `sub` (its client for a machine token). */
  subject?: string;
  /** A token's `client_id`/`azp`. */
  client?: string | null;
  /** A token's issuer: one subject name at two issuers is two people (what they own is kept apart by it). */
  issuer?: string;
  /** When a token stops being valid (epoch ms, its `exp`); keys do not expire. */
  expiresAt?: number | null;
  /** May run only the TRUSTED_DOCUMENTS operations (AUTH_TRUSTED_ONLY_CLIENTS, a key's `trustedOnly`). */
  trustedOnly?: boolean;
}

/** Whether a scope the gateway knows: a token's other scopes (openid, profile, …) grant nothing here. */
export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Development without configured keys: one caller with every scope (the gateway binds to loopback then). */
export const DEVELOPMENT_CALLER: Caller = { name: 'development', scopes: new Set(SCOPES) };

/** The shape of a Pothos scope-auth failure this module reads (kept structural: only the fields used). */
export interface ScopeFailure {
  kind: string;
  scope?: string;
  failures?: ScopeFailure[];
}

/** The scopes whose absence caused a refusal, so a FORBIDDEN answer can say what the key lacks. */
export function missingScopes(failure: ScopeFailure): string[] {
  const found = failure.scope !== undefined ? [failure.scope] : (failure.failures ?? []).flatMap(missingScopes);
  return [...new Set(found)];
}

/** "it needs the scope funds:read" / "it needs one of the scopes a, b" / "" when none is known. */
export function describeMissing(failure: ScopeFailure): string {
  const missing = missingScopes(failure);
  if (missing.length === 0) return '';
  if (missing.length === 1) return `: it needs the scope ${missing[0]}`;
  return `: it needs ${failure.kind === 'AllAuthScopes' ? 'all' : 'one'} of the scopes ${missing.join(', ')}`;
}
