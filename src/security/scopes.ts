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
