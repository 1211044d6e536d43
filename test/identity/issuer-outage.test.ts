import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { startKeyIssuer, type KeyIssuer } from './issuers.js';

// An issuer that stops answering (connections reset, or 503 from its proxy) while tokens keep coming: the keys
// fetched last keep verifying past AUTH_JWT_JWKS_CACHE_MS, and however many tokens arrive, the issuer is asked
// at most once per AUTH_JWT_JWKS_COOLDOWN_MS, for its keys as for its discovery document. Each issuer is a real
// local HTTP server counting the requests it gets; time moves by the gateway's clock (Date), faked, so the cache
// age and the cool-down pass without waiting.

const AUDIENCE = 'https://rewards.gateway.test';
const CACHE_MS = 60_000;
const COOLDOWN_MS = 30_000;
/** Needs a scope and nothing upstream: what the caller sees is the verifier's verdict alone. */
const WHO = '{ caller { subject } }';

let sandbox: TestSandbox;
const issuers: KeyIssuer[] = [];
const gateways: InProcessGateway[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox();
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([sandbox?.close(), ...issuers.map((i) => i.close())]);
});

async function setUp(env: (issuer: KeyIssuer) => Record<string, string>) {
  const issuer = await startKeyIssuer(AUDIENCE);
  issuers.push(issuer);
  const gateway = createTestGateway(sandbox, {
    env: {
      AUTH_JWT_ISSUER: issuer.issuer,
      AUTH_JWT_AUDIENCE: AUDIENCE,
      AUTH_JWT_JWKS_CACHE_MS: String(CACHE_MS),
      AUTH_JWT_JWKS_COOLDOWN_MS: String(COOLDOWN_MS),
      ...env(issuer),
    },
  });
  gateways.push(gateway);
  // Only Date is faked: sockets, timers and the issuer's server run as usual.
  vi.useFakeTimers({ toFake: ['Date'] });
  const ask = async (sub: string, kid?: string) => {
    const token = await issuer.sign({ sub, scope: 'funds:read' }, kid ? { kid } : {});
    const res = await gateway.gql(WHO, undefined, { authorization: `Bearer ${token}` });
    return { status: res.status, subject: res.body.data?.caller?.subject as string | undefined, reason: res.body.errors?.[0]?.extensions?.reason };
  };
  const issuerState = async () => {
    const body = (await (await gateway.fetch('/ready')).json()) as { issuers: { keys: string }[] };
    return body.issuers[0]!.keys;
  };
  const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);
  return { issuer, ask, issuerState, advance };
}

/** `count` tokens one after another (concurrent ones would share a fetch anyway), each answered. */
async function serially(count: number, ask: (sub: string) => Promise<{ status: number; subject?: string; reason?: unknown }>) {
  const answers = [];
  for (let i = 0; i < count; i++) answers.push(await ask(`user-${i}`));
  return answers;
}

it.each([
  ['connections reset', (issuer: KeyIssuer) => void (issuer.up = false), (issuer: KeyIssuer) => void (issuer.up = true)],
  ['503', (issuer: KeyIssuer) => void (issuer.failStatus = 503), (issuer: KeyIssuer) => void (issuer.failStatus = null)],
])('while the JWKS endpoint fails (%s), the last keys keep verifying past their cache age, at one fetch per cool-down', async (_name, fail, heal) => {
  const { issuer, ask, issuerState, advance } = await setUp((i) => ({ AUTH_JWT_JWKS_URL: `${i.issuer}/jwks` }));
  expect(await ask('first')).toEqual({ status: 200, subject: 'first', reason: undefined });
  expect(issuer.jwksFetches).toBe(1);
  fail(issuer);
  advance(CACHE_MS + 1);

  const during = await serially(20, ask);
  expect(during.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(during.map((a) => a.subject)).toEqual(during.map((_, i) => `user-${i}`));
  expect(issuer.jwksFetches).toBe(2);
  expect(await issuerState()).toBe('stale');

  // A made-up kid is no reason to ask again within the cool-down either; it is an unknown key, not an outage.
  expect(await ask('mallory', 'made-up')).toMatchObject({ status: 401, reason: 'unknown-key' });
  expect(issuer.jwksFetches).toBe(2);

  advance(COOLDOWN_MS + 1);
  expect((await serially(20, ask)).every((a) => a.status === 200)).toBe(true);
  expect(issuer.jwksFetches).toBe(3);

  heal(issuer);
  advance(COOLDOWN_MS + 1);
  expect(await ask('after')).toMatchObject({ status: 200, subject: 'after' });
  expect(issuer.jwksFetches).toBe(4);
  expect(await issuerState()).toBe('fresh');
});

it('while discovery fails, tokens naming the issuer cost one discovery fetch per cool-down, then work once it answers', async () => {
  const { issuer, ask, advance } = await setUp(() => ({}));
  issuer.up = false;
  const during = await serially(20, ask);
  expect(during.map((a) => a.status)).toEqual(Array(20).fill(401));
  expect(new Set(during.map((a) => a.reason))).toEqual(new Set(['issuer-unreachable']));
  expect(issuer.discoveryFetches).toBe(1);

  advance(COOLDOWN_MS + 1);
  await serially(20, ask);
  expect(issuer.discoveryFetches).toBe(2);

  issuer.up = true;
  // Still within the cool-down of the last failure: refused without asking.
  expect(await ask('early')).toMatchObject({ status: 401, reason: 'issuer-unreachable' });
  expect(issuer.discoveryFetches).toBe(2);
  advance(COOLDOWN_MS + 1);
  expect(await ask('later')).toMatchObject({ status: 200, subject: 'later' });
  expect(issuer.discoveryFetches).toBe(3);
  expect(issuer.jwksFetches).toBe(1);
});

it('while the keys were never fetched and the JWKS endpoint fails, tokens are refused as issuer-unreachable at one fetch per cool-down', async () => {
  const { issuer, ask } = await setUp((i) => ({ AUTH_JWT_JWKS_URL: `${i.issuer}/jwks` }));
  issuer.failStatus = 503;
  const during = await serially(20, ask);
  expect(new Set(during.map((a) => `${a.status} ${String(a.reason)}`))).toEqual(new Set(['401 issuer-unreachable']));
  expect(issuer.jwksFetches).toBe(1);
});
