// What a gateway API key may do. Reads of rewards and the catalog, writes that create, resend or cancel
// (spending money), and reads and top-ups of the balance are separate so a dashboard key cannot spend.

export const SCOPES = ['rewards:read', 'rewards:write', 'funds:read', 'funds:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: the name of their key (never the key itself) and what it may do. */
export interface Caller {
  name: string;
  scopes: ReadonlySet<Scope>;
}

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
