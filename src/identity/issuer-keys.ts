import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, type JSONWebKeySet, type JWTVerifyGetKey, type RemoteJWKSet } from 'jose';
import type { IssuerConfig } from './config.js';

// One issuer's signing keys. jose's remote key set fetches them, keeps them for `cacheMaxAge` and fetches again
// for an unknown `kid` at most once per `cooldownDuration` after a successful fetch. Two things it leaves to its
// user, which an issuer outage needs:
// - a failed fetch does not start the cool-down, so every token would ask again (20 tokens, 20 fetches). Every
//   request to the issuer (discovery, JWKS) goes through `spaced`, which sends at most one per cool-down,
//   however it ended and whatever the traffic; a token in between is answered from what is held.
// - keys past `cacheMaxAge` are dropped by jose when the refresh fails. Here the keys fetched last keep
//   verifying until the issuer answers again: a key does not become untrustworthy because its publisher is
//   down, and the issuer's outage would otherwise become the gateway's. /ready reports them `stale` meanwhile.

/** The issuer cannot be asked (down, failing, or asked within the cool-down) and no key of it is held. */
export class IssuerUnreachable extends Error {}

/** One request per cool-down at most; in between, a request fails at once without reaching the issuer. */
function spaced(doFetch: typeof fetch, cooldownMs: number) {
  let lastSentAt = -Infinity;
  return (url: string | URL, init: RequestInit): Promise<Response> => {
    const now = Date.now();
    if (now < lastSentAt + cooldownMs) return Promise.reject(new IssuerUnreachable('asked less than a cool-down ago'));
    lastSentAt = now;
    return doFetch(url, init);
  };
}

/** A refresh that failed, as opposed to jose's verdict on the token's key (not one the issuer publishes, …). */
const isKeyVerdict = (error: unknown) =>
  error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported;

export interface IssuerKeysOptions {
  cacheMaxAgeMs: number;
  cooldownMs: number;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

export interface IssuerKeys {
  /** For jwtVerify. Rejects with IssuerUnreachable while no key of the issuer is held and it cannot be asked. */
  getKey: JWTVerifyGetKey;
  /** `stale`: the last refresh failed, or the keys are past their cache age and not fetched again yet. */
  state(): 'none' | 'fresh' | 'stale';
}

export function issuerKeys(config: IssuerConfig, options: IssuerKeysOptions): IssuerKeys {
  const doFetch = options.fetch ?? fetch;
  const askDiscovery = spaced(doFetch, options.cooldownMs);
  const askJwks = spaced(doFetch, options.cooldownMs);
  let remote: RemoteJWKSet | null = null;
  let discovering: Promise<RemoteJWKSet> | null = null;
  let refreshFailed = false;
  /** The keys fetched last, for while a refresh fails. */
  let held: { jwks: JSONWebKeySet; verify: ReturnType<typeof createLocalJWKSet> } | null = null;

  // Discovery runs until it succeeds once: the JWKS URL does not change while the gateway runs.
  const keySet = (): Promise<RemoteJWKSet> => {
    if (remote) return Promise.resolve(remote);
    discovering ??= jwksUrlOf(config, askDiscovery).then(
      (url) =>
        (remote = createRemoteJWKSet(url, {
          cacheMaxAge: options.cacheMaxAgeMs,
          cooldownDuration: options.cooldownMs,
          timeoutDuration: 5_000,
          [customFetch]: askJwks,
        })),
      (error: unknown) => {
        discovering = null;
        throw new IssuerUnreachable('discovery failed', { cause: error });
      },
    );
    return discovering;
  };

  return {
    async getKey(header, token) {
      const set = await keySet();
      try {
        const key = await set(header, token);
        refreshFailed = false;
        return key;
      } catch (error) {
        if (isKeyVerdict(error)) throw error;
        refreshFailed = true;
        const last = set.jwks();
        if (!last) throw new IssuerUnreachable('the keys cannot be fetched', { cause: error });
        if (held?.jwks !== last) held = { jwks: last, verify: createLocalJWKSet(last) };
        return held.verify(header, token);
      }
    },
    state() {
      if (!remote?.jwks()) return 'none';
      return refreshFailed || !remote.fresh ? 'stale' : 'fresh';
    },
  };
}

async function jwksUrlOf(config: IssuerConfig, ask: (url: URL, init: RequestInit) => Promise<Response>): Promise<URL> {
  if (config.jwksUrl) return new URL(config.jwksUrl);
  const response = await ask(new URL('.well-known/openid-configuration', config.issuer.endsWith('/') ? config.issuer : `${config.issuer}/`), {
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const { jwks_uri } = (await response.json()) as { jwks_uri?: unknown };
  if (typeof jwks_uri !== 'string') throw new Error('discovery names no jwks_uri');
  return new URL(jwks_uri);
}
