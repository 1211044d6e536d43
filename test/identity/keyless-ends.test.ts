import { afterAll, expect, it } from 'vitest';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { startKeyIssuer, type KeyIssuer } from './issuers.js';

// Setting AUTH_JWT_ISSUER without GATEWAY_API_KEYS ends keyless development: every request then needs a token.
// The gateway says so at start, and a plain request is told why it needs one (not "send an API key", as no key
// exists). A token that cannot be checked because the issuer is unreachable is not the caller's fault: it is
// not told to get a new token.

const AUDIENCE = 'https://rewards.gateway.test';
let sandbox: TestSandbox | undefined;
let issuer: KeyIssuer | undefined;
let gateway: InProcessGateway | undefined;
const lines: { level: string; msg: string }[] = [];

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), issuer?.close()]);
});

async function setUp() {
  sandbox ??= await startTestSandbox();
  issuer ??= await startKeyIssuer(AUDIENCE);
  gateway ??= createTestGateway(sandbox, {
    env: { AUTH_JWT_ISSUER: issuer.issuer, AUTH_JWT_AUDIENCE: AUDIENCE, AUTH_JWT_JWKS_COOLDOWN_MS: '0', LOG_LEVEL: 'warn' },
    logTo: { write: (line: string) => void lines.push(JSON.parse(line) as { level: string; msg: string }) },
  });
  return { issuer, gateway };
}

it('says at start that keyless development is off, naming the variable that ended it', async () => {
  await setUp();
  expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toContainEqual(
    expect.stringMatching(/AUTH_JWT_ISSUER.*keyless development is off/),
  );
});

it('tells a plain request that the gateway takes tokens only, and why, rather than to send an API key', async () => {
  const { gateway } = await setUp();
  for (const headers of [{}, { authorization: 'Bearer some-api-key-0123456789abcdef' }] as Record<string, string>[]) {
    const res = await gateway.gql('{ viewer { username } }', {}, headers);
    expect(res.status).toBe(401);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.body.errors?.[0]?.message).toMatch(/access token.*AUTH_JWT_ISSUER/);
    expect(res.body.errors?.[0]?.message).not.toMatch(/API key sent|Send a gateway API key/);
  }
});

it('does not tell a caller to get a new token when the issuer cannot be reached', async () => {
  const { issuer, gateway } = await setUp();
  issuer.up = false;
  const token = await issuer.sign({ sub: 'ada', scope: 'rewards:read' });
  const res = await gateway.gql('{ caller { subject } }', {}, { authorization: `Bearer ${token}` });
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_TOKEN', reason: 'issuer-unreachable' });
  expect(res.body.errors?.[0]?.message).not.toMatch(/new token/);
  expect(res.body.errors?.[0]?.message).toMatch(/not.*the token|later/);
  issuer.up = true;
});
