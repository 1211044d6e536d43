import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/cluster.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { subscribeSse } from '../support/live.js';
import { startKeyIssuer, type KeyIssuer } from './issuers.js';

// With access tokens and no API keys, the rate limit counts per token subject, as it counts per key: many users
// behind one address (a mobile carrier's NAT, an office) each get their own rate. Over a real socket, where the
// gateway knows the remote address (keyless development counts per address instead). Subscription caps count
// per subject the same way.

const AUDIENCE = 'https://rewards.gateway.test';
const QUERY = '{ brands(first: 1) { edges { node { brandCode } } } }';
const FUNDS = 'subscription { fundsChanged { cursor } }';

let issuer: KeyIssuer;
let gateway: TestGateway;

beforeAll(async () => {
  issuer = await startKeyIssuer(AUDIENCE);
  gateway = await startTestGateway({
    env: { AUTH_JWT_ISSUER: issuer.issuer, AUTH_JWT_AUDIENCE: AUDIENCE, RATE_LIMIT_PER_SECOND: '0.001', RATE_LIMIT_BURST: '2' },
  });
});

afterAll(async () => {
  await gateway?.close();
  await issuer?.close();
});

it('one subject spending its rate leaves another subject from the same address served', async () => {
  const first = { authorization: `Bearer ${await issuer.sign({ sub: 'user-1', scope: 'rewards:read' })}` };
  const second = { authorization: `Bearer ${await issuer.sign({ sub: 'user-2', scope: 'rewards:read' })}` };
  for (let i = 0; i < 2; i++) expect((await gateway.gql(QUERY, undefined, first)).body.errors).toBeUndefined();
  const limited = await gateway.gql(QUERY, undefined, first);
  expect(limited.status).toBe(429);
  expect(limited.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  // Counted for the subject, not for the address both share.
  expect(limited.body.errors?.[0]?.message).toContain(`"token:user-1@${issuer.issuer}"`);
  const other = await gateway.gql(QUERY, undefined, second);
  expect(other.body.errors).toBeUndefined();
});

it('subscription caps count per subject: one subject at its cap leaves another subject its own', async () => {
  // One gateway with a cap of one subscription per caller, beside the file's (the rate above is spent).
  const capped = await startTestGateway({
    env: { AUTH_JWT_ISSUER: issuer.issuer, AUTH_JWT_AUDIENCE: AUDIENCE, LIVE_MAX_SUBSCRIPTIONS_PER_KEY: '1' },
  });
  try {
    const as = async (sub: string) => ({ authorization: `Bearer ${await issuer.sign({ sub, scope: 'funds:read' })}` });
    const first = subscribeSse(capped.url, FUNDS, {}, await as('user-1'));
    await eventually(() => capped.gateway.live.stats().subscribers === 1);
    const refused = subscribeSse(capped.url, FUNDS, {}, await as('user-1'));
    expect(await refused.ended).toBe('complete');
    expect(refused.received[0]?.errors?.[0]?.extensions?.code).toBe('SUBSCRIPTIONS_PER_KEY_EXCEEDED');
    const other = subscribeSse(capped.url, FUNDS, {}, await as('user-2'));
    await eventually(() => capped.gateway.live.stats().subscribers === 2);
    expect(other.received).toEqual([]);
    first.close();
    other.close();
  } finally {
    await capped.close();
  }
});
