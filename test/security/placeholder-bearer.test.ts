import { describe, expect } from 'vitest';
import { subscribeWs, wsClient } from '../support/live.js';
import { test as keyless, testWith } from '../support/test.js';
import { KEYS_ENV } from './keys.js';

// `Authorization: Bearer undefined` (or null, or nothing after Bearer) is a client that meant to send a key and
// sent the string of a variable that holds none. Keyless development would otherwise let it through and the bug
// would surface only in front of a gateway with keys, so it is refused in every mode, naming the client bug.

const withKeys = testWith({ env: KEYS_ENV });
const PLACEHOLDERS = ['Bearer undefined', 'Bearer null', 'bearer NULL', 'Bearer ', 'Bearer'];

describe.each([
  ['keyless development', keyless],
  ['a gateway with API keys', withKeys],
] as const)('in %s', (_mode, it) => {
  it.for(PLACEHOLDERS)('%j is a 401 naming the client bug, and reaches nothing upstream', async (authorization, { gateway }) => {
    await gateway.upstreamDelta();
    const res = await gateway.gql('{ viewer { username } }', {}, { authorization });
    expect(res.status).toBe(401);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.body.errors?.[0]?.message).toMatch(/holds no key .*client/);
    expect(await gateway.upstreamDelta()).toEqual({});
  });
});

keyless('keyless development still admits a request with no Authorization header', async ({ gateway }) => {
  const res = await gateway.gql('{ viewer { username } }');
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
});

keyless('keyless development closes a WebSocket whose connection_init says Bearer undefined (4403), naming the bug', async ({ gateway }) => {
  const url = await gateway.listen();
  const client = wsClient(url, { connectionParams: { authorization: 'Bearer undefined' }, lazy: false, onNonLazyError: () => undefined });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    client.on('closed', (event) => resolve(event as { code: number; reason: string })),
  );
  const stream = subscribeWs(client, 'subscription { fundsChanged { funds { balances { currency } } } }');
  const { code, reason } = await closed;
  expect(code).toBe(4403);
  expect(reason).toMatch(/client/);
  expect(await stream.ended).toBe('error');
  await client.dispose();
});
