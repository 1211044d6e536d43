import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import Provider from 'oidc-provider';

// Token issuers for the identity suites, on loopback ports of their own:
// - startOidcProvider: a real OpenID provider (oidc-provider) with a client-credentials client and resource
//   indicators, so its access tokens are JWTs for the gateway's audience;
// - startKeyIssuer: a bare issuer (discovery + JWKS) whose tokens the test signs itself with jose, for claims a
//   provider will not mint (`scp`, expired, future nbf, hostile headers), key rotation, and counting JWKS fetches.

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface KeyIssuer {
  issuer: string;
  /** Keys the JWKS publishes; replace to rotate. */
  published: SigningKey[];
  /** GETs of the JWKS so far, answered or not. */
  jwksFetches: number;
  /** GETs of the discovery document so far, answered or not. */
  discoveryFetches: number;
  /** Whether it answers at all (false: connections are reset). */
  up: boolean;
  /** When set, every request is answered with this status (an issuer failing in front of its proxy). */
  failStatus: number | null;
  sign(
    claims: JWTPayload,
    options?: { key?: SigningKey; kid?: string; header?: Record<string, unknown>; expiresIn?: string | number },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startKeyIssuer(audience: string): Promise<KeyIssuer> {
  const first = await signingKey('key-1');
  const state: KeyIssuer = {
    issuer: '',
    published: [first],
    jwksFetches: 0,
    discoveryFetches: 0,
    up: true,
    failStatus: null,
    async sign(claims, options = {}) {
      const key = options.key ?? state.published[0]!;
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? key.kid, typ: 'at+jwt', ...options.header })
        .setIssuer(state.issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(key.privateKey);
    },
    close: () => close(server),
  };
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') state.discoveryFetches++;
    if (req.url === '/jwks') state.jwksFetches++;
    if (!state.up) return req.socket.destroy();
    if (state.failStatus !== null) {
      res.statusCode = state.failStatus;
      return res.end();
    }
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ issuer: state.issuer, jwks_uri: `${state.issuer}/jwks` }));
    }
    if (req.url === '/jwks') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ keys: state.published.map((k) => k.publicJwk) }));
    }
    res.statusCode = 404;
    res.end();
  });
  state.issuer = await listen(server);
  return state;
}

export interface OidcProvider {
  issuer: string;
  /** A client-credentials access token of `clientId` for the gateway's audience, with these scopes. */
  token(clientId: string, scope: string): Promise<string>;
  close(): Promise<void>;
}

export const OIDC_SECRET = 'a-client-secret-for-tests-only-0123456789';

export async function startOidcProvider(audience: string, clients: string[]): Promise<OidcProvider> {
  const server = createServer();
  const issuer = await listen(server);
  const key = await signingKey('oidc-1');
  const privateJwk = { ...(await exportJWK(key.privateKey)), kid: key.kid, alg: 'RS256', use: 'sig' };
  const scope = 'rewards:read rewards:write funds:read funds:write';
  const provider = new Provider(issuer, {
    clients: clients.map((client_id) => ({
      client_id,
      client_secret: OIDC_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope,
    })),
    jwks: { keys: [privateJwk] },
    scopes: scope.split(' '),
    // Client credentials only: no login pages (devInteractions) and a token lifetime of our own.
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope, audience, accessTokenFormat: 'jwt', accessTokenTTL: 300, jwt: { sign: { alg: 'RS256' } } }),
      },
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    async token(clientId, wanted) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:${OIDC_SECRET}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: wanted, resource: audience }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token request failed: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    close: () => close(server),
  };
}
