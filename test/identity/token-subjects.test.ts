import fc from 'fast-check';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCallerName } from '../../src/security/token-callers.js';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { startKeyIssuer, type KeyIssuer } from './issuers.js';

// Who a token is: its subject at its issuer. Limits count per (issuer, subject), so `bob` at one issuer and
// `bob` at another are two callers; and the claims jose leaves unchecked (`iat` ahead of the clock, a `sub` that
// is not a string) are refused as INVALID_TOKEN rather than turned into a subject.

const AUDIENCE = 'https://rewards.gateway.test';
const WHO = '{ caller { subject } }';

let sandbox: TestSandbox;
let first: KeyIssuer;
let second: KeyIssuer;
let gateway: InProcessGateway;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  [first, second] = await Promise.all([startKeyIssuer(AUDIENCE), startKeyIssuer(AUDIENCE)]);
  gateway = createTestGateway(sandbox, {
    env: {
      AUTH_JWT_ISSUERS: JSON.stringify([
        { issuer: first.issuer, audience: AUDIENCE },
        { issuer: second.issuer, audience: AUDIENCE },
      ]),
      RATE_LIMIT_PER_SECOND: '0.001',
      RATE_LIMIT_BURST: '2',
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), first?.close(), second?.close()]);
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const now = () => Math.floor(Date.now() / 1000);

/** A token of `issuer` with exactly these claims (beside iss, aud and exp), signed by its published key. */
function signed(issuer: KeyIssuer, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ iss: issuer.issuer, aud: AUDIENCE, exp: now() + 300, scope: 'funds:read', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: issuer.published[0]!.kid, typ: 'at+jwt' })
    .sign(issuer.published[0]!.privateKey);
}

describe('claims jose leaves unchecked', () => {
  it.each([
    ['iat 300 s ahead of the clock', () => ({ sub: 'early', iat: now() + 300 }), 'issued-in-future', /iat is in the future/],
    ['sub 123', () => ({ sub: 123 }), 'bad-subject', /sub is not a string/],
    ['sub true', () => ({ sub: true }), 'bad-subject', /sub is not a string/],
    ['sub ["alice"]', () => ({ sub: ['alice'] }), 'bad-subject', /sub is not a string/],
    ['sub {}', () => ({ sub: {} }), 'bad-subject', /sub is not a string/],
  ])('%s is INVALID_TOKEN, saying why', async (_name, claims, reason, description) => {
    // A new subject each time (the rate limit of this file is 2): the refusal comes before any limit.
    const res = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(await signed(first, claims())) },
      body: JSON.stringify({ query: WHO }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(description);
    const body = (await res.json()) as { data?: unknown; errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'INVALID_TOKEN', reason });
    expect(body.errors[0]!.message).toMatch(description);
  });

  it('an iat within the clock skew (30 s ahead, the issuer clock a little fast) is accepted', async () => {
    const res = await gateway.gql(WHO, undefined, bearer(await signed(first, { sub: 'skewed', iat: now() + 30 })));
    expect(res.body).toEqual({ data: { caller: { subject: 'skewed' } } });
  });
});

describe('limits count per subject at its issuer', () => {
  it('bob spending his rate at one issuer leaves bob of another issuer served', async () => {
    const atFirst = bearer(await signed(first, { sub: 'bob' }));
    for (let i = 0; i < 2; i++) expect((await gateway.gql(WHO, undefined, atFirst)).body.errors).toBeUndefined();
    const limited = await gateway.gql(WHO, undefined, atFirst);
    expect(limited.status).toBe(429);
    expect(limited.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(limited.body.errors?.[0]?.message).toContain(`"token:bob@${first.issuer}"`);

    const atSecond = await gateway.gql(WHO, undefined, bearer(await signed(second, { sub: 'bob' })));
    expect(atSecond.body).toEqual({ data: { caller: { subject: 'bob' } } });
  });

  it('two (issuer, subject) pairs have one name only if they are the same pair', () => {
    // Issuers and subjects crafted against separators: unencoded, `bob@https://a.example/t` at a.example and `bob`
    // at `https://a.example/t@https://a.example` (a valid URL) would both read token:bob@https://a.example/t@https://a.example.
    const issuer = fc.oneof(fc.webUrl(), fc.constantFrom('https://a.example', 'https://a.example/t', 'https://a.example/t@https://a.example'));
    const subject = fc.oneof(fc.string(), fc.constantFrom('bob', 'bob@https://a.example/t', '@', '%40', 'bob%40https://a.example/t'));
    fc.assert(
      fc.property(issuer, subject, issuer, subject, (i1, s1, i2, s2) => {
        expect(tokenCallerName(i1, s1) === tokenCallerName(i2, s2)).toBe(i1 === i2 && s1 === s2);
      }),
      {
        numRuns: Number(process.env.FC_RUNS ?? 2_000),
        examples: [['https://a.example', 'bob@https://a.example/t', 'https://a.example/t@https://a.example', 'bob']],
      },
    );
  });
});
