import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyIssuer, type KeyIssuer } from '../identity/issuers.js';
import { createTestGateway, type InProcessGateway } from '../support/gateway.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { connectMcp, structured } from './support.js';

// /mcp with access tokens of an OpenID issuer, as /graphql takes them: the token's scopes decide the tools, a
// bad token is the catalogue's INVALID_TOKEN with MCP's challenge, and the resource metadata names the issuer
// a client gets its token from.

const AUDIENCE = 'https://rewards.gateway.test';

let sandbox: TestSandbox;
let issuer: KeyIssuer;
let gateway: InProcessGateway;
let url: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  issuer = await startKeyIssuer(AUDIENCE);
  gateway = createTestGateway(sandbox, { env: { AUTH_JWT_ISSUER: issuer.issuer, AUTH_JWT_AUDIENCE: AUDIENCE, MCP_ENABLED: 'true' } });
  url = await gateway.listen();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sandbox?.close(), issuer?.close()]);
});

const token = (scope: string) => issuer.sign({ sub: 'agent-1', scope });

describe('access tokens on /mcp', () => {
  it("a token's scopes decide the tools it sees and may call", async () => {
    const mcp = await connectMcp(url, `Bearer ${await token('funds:read')}`);
    try {
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['ReadBalances']);
      const balances = await mcp.client.callTool({ name: 'ReadBalances', arguments: {} });
      expect(structured(balances).funds.balances.length).toBeGreaterThan(0);
      const refused = await mcp.client.callTool({ name: 'GetOrder', arguments: { ref: 'any' } });
      expect(structured(refused).error).toMatchObject({ code: 'FORBIDDEN', missingScopes: ['rewards:read'] });
      expect(structured(refused).error.message).toMatch(/^The access token of "agent-1@.*" may not use the tool GetOrder/);
    } finally {
      await mcp.close();
    }
  });

  it('an expired token is INVALID_TOKEN, its challenge naming the resource metadata', async () => {
    const expired = await issuer.sign({ sub: 'agent-1', scope: 'rewards:read' }, { expiresIn: -60 });
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${expired}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      new RegExp(`^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${url}/\\.well-known/oauth-protected-resource/mcp"$`),
    );
    expect((await res.json()).errors[0].extensions.code).toBe('INVALID_TOKEN');
  });

  it('the protected resource metadata names the issuer as the authorization server', async () => {
    const metadata = await (await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: `${url}/mcp`, authorization_servers: [issuer.issuer] });
  });
});
