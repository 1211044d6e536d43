// What the delivery loop needs of the network, and nothing more: one checked URL, one HTTP attempt. The address
// policy (no server-side request forgery) and the pinned connection live behind these two functions, so the loop
// cannot send anywhere the policy has not just checked.

/** Why a URL may not receive webhooks, in words that name the rule and the fix. */
export type UrlVerdict = { ok: true } | { ok: false; rule: string; message: string };

/** Checks a URL (scheme, host, every address it resolves to) against the policy, at registration. */
export type CheckEndpointUrl = (url: string) => Promise<UrlVerdict>;

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * How one attempt ended. `answered` is any HTTP status (the loop decides what a 2xx is); `refused` means the
 * policy stopped it before a byte was sent (the name now resolves somewhere forbidden); `failed` is a timeout
 * or a connection that could not be made or broke.
 */
export type AttemptOutcome =
  | { kind: 'answered'; status: number; durationMs: number; bodyExcerpt: string }
  | { kind: 'refused'; rule: string; message: string; durationMs: number }
  | { kind: 'failed'; reason: 'timeout' | 'connection'; message: string; durationMs: number };

/** Sends one attempt to an address checked at the moment of sending; never follows redirects. */
export type SendAttempt = (request: AttemptRequest) => Promise<AttemptOutcome>;
