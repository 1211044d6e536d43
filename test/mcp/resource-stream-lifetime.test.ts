import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyIssuer, type KeyIssuer } from '../identity/issuers.js';
import { eventually } from '../support/cluster.js';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { connectMcp, createOrder, initialize, liveQueriesOpen, message, openStream } from './support.js';

// How long a session's event stream (GET /mcp) and the live queries following its subscriptions last, as an
// operator and an attacker would try it: a stream opened with an access token ends with the token, as a WebSocket
// of that token is closed; the log says a refused follow once, not at every retry.

const AUDIENCE = 'https://rewards.gateway.test';

let sandbox: TestSandbox;
let issuer: KeyIssuer;
let gateway: InProcessGateway;
let url: string;
const logged: { level: number; msg: string; reason?: string }[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ balances: { USD: 100_000_000 } });
  issuer = await startKeyIssuer(AUDIENCE);
  gateway = createTestGateway(sandbox, {
    env: {
      AUTH_JWT_ISSUER: issuer.issuer,
      AUTH_JWT_AUDIENCE: AUDIENCE,
      MCP_ENABLED: 'true',
      POLL_INTERVAL_MS: '50',
      POLL_INTERVAL_FLOOR_MS: '10',
      LOG_LEVEL: 'warn',
    },
    logTo: { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) },
  });
  url = await gateway.listen();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), issuer?.close()]);
});

const bearer = async (sub: string, scope: string, expiresIn = '5m') => ({ key: await issuer.sign({ sub, scope }, { expiresIn }) });

describe('a session stream of an access token', () => {
  it('ends when the token expires, and its live queries with it', async () => {
    const writer = await connectMcp(url, `Bearer ${(await bearer('writer', 'rewards:read rewards:write')).key}`);
    const { uri } = await createOrder(writer, sandbox);
    await writer.close();
    const shortLived = await bearer('agent-expiring', 'rewards:read', '2s');
    const session = await initialize(url, shortLived);
    expect(await message(url, shortLived, session, 'resources/subscribe', { uri })).toMatchObject({ result: {} });
    const stream = openStream(url, shortLived, session);
    try {
      await eventually(async () => (await liveQueriesOpen(url)) === 1, 25, { ms: 10_000, what: 'the stream to follow the order' });
      // The token lives 2 s (exp has a second's grain): the stream must end by itself, so the client opens it
      // again with a fresh token, rather than stay open following nothing.
      const ended = await Promise.race([stream.ended.then(() => 'ended'), new Promise((resolve) => setTimeout(resolve, 15_000, 'open'))]);
      expect(ended).toBe('ended');
      await eventually(async () => (await liveQueriesOpen(url)) === 0, 25, { ms: 10_000, what: 'the expired stream’s live query to end' });
    } finally {
      stream.close();
    }
  });
});
