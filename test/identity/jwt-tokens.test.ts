import { SignJWT, base64url, decodeProtectedHeader } from 'jose';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { signingKey, startKeyIssuer, startOidcProvider, type KeyIssuer, type OidcProvider } from './issuers.js';

// JWT access tokens beside API keys, against a real OpenID provider (oidc-provider, client credentials with a
// resource indicator) and a bare issuer whose tokens the test signs itself (scp, hostile tokens, rotation).

const AUDIENCE = 'https://rewards.gateway.test';
const KEY = { name: 'server', key: 'a-server-key-0123456789abcdef', scopes: ['funds:read'] };
const READS = '{ brands(first: 1) { edges { node { brandCode } } } funds { balances { currency } } }';
const TOP_UP = 'mutation { addFunds(input: { id: "t1", currency: "USD", amountInCents: 1 }) { __typename } }';

let sandbox: TestSandbox;
let oidc: OidcProvider;
let bare: KeyIssuer;
let gateway: InProcessGateway;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  oidc = await startOidcProvider(AUDIENCE, ['web-app', 'mobile-app']);
  bare = await startKeyIssuer(AUDIENCE);
  gateway = createTestGateway(sandbox, {
    env: {
      GATEWAY_API_KEYS: JSON.stringify([KEY]),
      AUTH_JWT_ISSUER: oidc.issuer,
      AUTH_JWT_AUDIENCE: AUDIENCE,
      AUTH_JWT_ISSUERS: JSON.stringify([{ issuer: bare.issuer, audience: AUDIENCE }]),
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), oidc?.close(), bare?.close()]);
});

const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });
const codes = (body: { errors?: { extensions?: Record<string, unknown> }[] }) => (body.errors ?? []).map((e) => e.extensions?.code);

describe('tokens from a real OpenID provider', () => {
  it('are JWTs whose scope claim grants the gateway scopes, read and write', async () => {
    const token = await oidc.token('web-app', 'rewards:read funds:read funds:write');
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
    const reads = await gateway.gql(READS, undefined, asBearer(token));
    expect(reads.status).toBe(200);
    expect(reads.body.errors).toBeUndefined();
    expect(reads.body.data.funds.balances.length).toBeGreaterThan(0);
    const write = await gateway.gql(TOP_UP, undefined, asBearer(token));
    expect(codes(write.body)).not.toContain('FORBIDDEN');
    expect(write.body.data.addFunds.__typename).toBe('ValidationError');
  });

  it('a missing scope is FORBIDDEN naming it, as for a key', async () => {
    const token = await oidc.token('web-app', 'rewards:read');
    const res = await gateway.gql(TOP_UP, undefined, asBearer(token));
    expect(codes(res.body)).toEqual(['FORBIDDEN']);
    expect(res.body.errors?.[0]?.extensions?.missingScopes).toEqual(['funds:write']);
    expect(res.body.errors?.[0]?.message).toMatch(/^The access token of ".+" may not use Mutation\.addFunds: .*funds:write; ask its issuer/);
  });

  it('caller tells a token who it is, and a key', async () => {
    const token = await oidc.token('mobile-app', 'funds:read');
    const query = '{ caller { kind subject client scopes expiresAt trustedOnly } }';
    const asToken = await gateway.gql(query, undefined, asBearer(token));
    expect(asToken.body.data.caller).toMatchObject({
      kind: 'TOKEN',
      subject: 'mobile-app',
      client: 'mobile-app',
      scopes: ['funds:read'],
      trustedOnly: false,
    });
    expect(Date.parse(asToken.body.data.caller.expiresAt)).toBeGreaterThan(Date.now());
    // viewer tells the same beside the upstream account (a token with rewards:read, which viewer needs).
    const reader = await oidc.token('web-app', 'rewards:read');
    const viewer = await gateway.gql('{ viewer { username caller { kind subject scopes } } }', undefined, asBearer(reader));
    expect(viewer.body.errors).toBeUndefined();
    expect(viewer.body.data.viewer.caller).toEqual({ kind: 'TOKEN', subject: 'web-app', scopes: ['rewards:read'] });
    const asKey = await gateway.gql(query, undefined, asBearer(KEY.key));
    expect(asKey.body.data.caller).toEqual({
      kind: 'KEY',
      subject: 'server',
      client: null,
      scopes: ['funds:read'],
      expiresAt: null,
      trustedOnly: false,
    });
  });

  it('an API key still works beside tokens', async () => {
    const res = await gateway.gql('{ funds { balances { currency } } }', undefined, asBearer(KEY.key));
    expect(res.body.errors).toBeUndefined();
    expect(codes((await gateway.gql('{ funds { balances { currency } } }', undefined, asBearer('not-a-key-0123456789abcdef'))).body)).toEqual([
      'UNAUTHENTICATED',
    ]);
  });
});

describe('tokens of an issuer that uses scp', () => {
  it('reads scopes from an scp array', async () => {
    const token = await bare.sign({ sub: 'user-1', scp: ['funds:read', 'openid'] });
    const res = await gateway.gql('{ funds { balances { currency } } }', undefined, asBearer(token));
    expect(res.body.errors).toBeUndefined();
    expect(codes((await gateway.gql(TOP_UP, undefined, asBearer(token))).body)).toEqual(['FORBIDDEN']);
  });

  it('accepts a key the issuer rotates in, without a restart', async () => {
    const rotated = await signingKey('key-2');
    const before = await bare.sign({ sub: 'user-1', scope: 'funds:read' }, { key: rotated });
    // Not published yet: an unknown key.
    const refused = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asBearer(before) },
      body: '{"query":"{ funds { balances { currency } } }"}',
    });
    expect(refused.status).toBe(401);
    // The cool-down after the last fetch (30 s by default) is what stands between a rotated key and its use;
    // a gateway with a short one shows the key accepted once the issuer publishes it.
    const quick = createTestGateway(sandbox, {
      env: { AUTH_JWT_ISSUER: bare.issuer, AUTH_JWT_AUDIENCE: AUDIENCE, AUTH_JWT_JWKS_COOLDOWN_MS: '0' },
    });
    try {
      const first = await bare.sign({ sub: 'user-1', scope: 'funds:read' });
      expect((await quick.gql('{ funds { balances { currency } } }', undefined, asBearer(first))).body.errors).toBeUndefined();
      bare.published = [bare.published[0]!, rotated];
      const res = await quick.gql(
        '{ funds { balances { currency } } }',
        undefined,
        asBearer(await bare.sign({ sub: 'user-1', scope: 'funds:read' }, { key: rotated })),
      );
      expect(res.body.errors).toBeUndefined();
    } finally {
      await quick.close();
    }
  });
});

describe('hostile tokens', () => {
  const body = JSON.stringify({ query: '{ funds { balances { currency } } }' });
  async function send(token: string) {
    const res = await gateway.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...asBearer(token) }, body });
    return { status: res.status, challenge: res.headers.get('www-authenticate'), text: await res.text() };
  }
  const b64 = (value: object) => base64url.encode(JSON.stringify(value));
  const now = () => Math.floor(Date.now() / 1000);

  it('are each refused with a 401 naming why, never echoing the token, with nothing sent upstream', async () => {
    const claims = { iss: bare.issuer, aud: AUDIENCE, sub: 'mallory', scope: 'funds:read', exp: now() + 300 };
    const good = await bare.sign({ sub: 'mallory', scope: 'funds:read' });
    const [head, payload, signature] = good.split('.');
    const hmacWithPublicKey = (() => {
      const header = b64({ alg: 'HS256', kid: 'key-1' });
      const signed = `${header}.${b64(claims)}`;
      const mac = createHmac('sha256', JSON.stringify(bare.published[0]!.publicJwk)).update(signed).digest('base64url');
      return `${signed}.${mac}`;
    })();
    const stranger = await signingKey('key-1');
    const cases: [string, string, RegExp][] = [
      ['alg none', `${b64({ alg: 'none' })}.${b64(claims)}.`, /algorithm/],
      ['HS256 with the public key', hmacWithPublicKey, /algorithm/],
      [
        'wrong issuer',
        await new SignJWT({ ...claims, iss: 'https://evil.example' })
          .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
          .sign(bare.published[0]!.privateKey),
        /issuer/,
      ],
      [
        'wrong audience',
        await new SignJWT({ ...claims, aud: 'https://other.api' })
          .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
          .sign(bare.published[0]!.privateKey),
        /audience/,
      ],
      ['expired', await bare.sign({ sub: 'mallory' }, { expiresIn: now() - 60 }), /expired/],
      [
        'nbf in the future',
        await new SignJWT({ ...claims, nbf: now() + 600 }).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(bare.published[0]!.privateKey),
        /not valid yet/,
      ],
      ['bad signature', `${head}.${payload}.${signature!.slice(0, -4)}AAAA`, /signature/],
      ['signed by a stranger under a known kid', await bare.sign({ sub: 'mallory' }, { key: stranger }), /signature/],
      ['unknown kid', await bare.sign({ sub: 'mallory' }, { kid: 'made-up' }), /key the issuer does not publish/],
      ['64 KB token', `${head}.${base64url.encode('x'.repeat(48 * 1024))}.${signature}`, /over 8 KB/],
      ['malformed', `eyJ${'a'.repeat(20)}.eyJ.zz`, /malformed/],
      // Without sub, client_id or azp, every such token would be one shared caller (limits, webhook endpoints).
      [
        'no subject',
        await new SignJWT({ iss: bare.issuer, aud: AUDIENCE, scope: 'funds:read', exp: now() + 300 })
          .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
          .sign(bare.published[0]!.privateKey),
        /names no subject/,
      ],
    ];
    await gateway.upstreamDelta();
    for (const [name, token, reason] of cases) {
      const res = await send(token);
      expect(res.status, name).toBe(401);
      expect(res.challenge, name).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
      expect(res.challenge, name).toMatch(reason);
      expect(res.text, name).not.toContain(token.slice(0, 40));
      expect(JSON.parse(res.text).errors[0].extensions.code, name).toBe('INVALID_TOKEN');
    }
    expect(await gateway.upstreamDelta()).toEqual({});
  });

  it('200 tokens with made-up kids cost the issuer at most 5 JWKS fetches', async () => {
    const before = bare.jwksFetches;
    const tokens = await Promise.all(Array.from({ length: 200 }, (_, i) => bare.sign({ sub: 'flood' }, { kid: `made-up-${i}` })));
    const statuses = await Promise.all(tokens.map(async (token) => (await send(token)).status));
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(bare.jwksFetches - before).toBeLessThanOrEqual(5);
  });
});

describe('an unreachable issuer', () => {
  it('leaves tokens signed by cached keys working, and /ready reports the issuers', async () => {
    const ready = async () => {
      const res = await gateway.fetch('/ready');
      return { status: res.status, body: (await res.json()) as { issuers?: { issuer: string; keys: string }[] } };
    };
    expect((await ready()).body.issuers).toEqual(
      expect.arrayContaining([
        { issuer: oidc.issuer, keys: 'fresh' },
        { issuer: bare.issuer, keys: 'fresh' },
      ]),
    );
    bare.up = false;
    try {
      const token = await bare.sign({ sub: 'user-1', scope: 'funds:read' });
      const res = await gateway.gql('{ funds { balances { currency } } }', undefined, asBearer(token));
      expect(res.body.errors).toBeUndefined();
      expect((await ready()).status).toBe(200);
    } finally {
      bare.up = true;
    }
  });
});
