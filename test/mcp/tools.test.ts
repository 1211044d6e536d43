import { describe, expect } from 'vitest';
import { createEmailOrder } from '../support/fixtures.js';
import { testWith } from '../support/test.js';
import { KEYS, KEYS_ENV } from '../security/keys.js';
import { connectMcp, structured } from './support.js';

// /mcp as an agent meets it: the tools made of operations/, with input schemas from the GraphQL variables,
// listed and refused by the caller's scopes, each call one GraphQL request of the caller.

const it = testWith({ env: { ...KEYS_ENV, MCP_ENABLED: 'true' } });
const auth = (key: { key: string }) => `Bearer ${key.key}`;

describe('the tools of operations/', () => {
  it('lists each operation with its leading comment and an input schema from its variables', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.writer));
    try {
      const { tools } = await mcp.client.listTools();
      const create = tools.find((tool) => tool.name === 'CreateReward')!;
      expect(create.description).toMatch(/^Orders gift cards .* Never retry with a new id/);
      const input = create.inputSchema as any;
      expect(input.required).toEqual(['input']);
      const fields = input.properties.input;
      expect(fields.required).toEqual(expect.arrayContaining(['id', 'priceInCents', 'reward']));
      expect(fields.properties.id.description).toMatch(/idempotency key/);
      expect(fields.properties.deliveryType).toMatchObject({
        type: 'string',
        enum: expect.arrayContaining(['EMAIL', 'SHORTLINK']),
        default: 'EMAIL',
      });
      expect(fields.properties.priceInCents).toMatchObject({ type: 'integer', description: 'Face value of each reward.' });
      expect(fields.properties.expiry).toMatchObject({ type: 'string', format: 'date' });
      // RewardChoice is @oneOf: exactly one of its fields.
      expect(fields.properties.reward).toMatchObject({
        type: 'object',
        minProperties: 1,
        maxProperties: 1,
        oneOf: expect.arrayContaining([{ required: ['brand'] }]),
      });
      expect(create.annotations).toMatchObject({ readOnlyHint: false });

      const find = tools.find((tool) => tool.name === 'FindRewards')!;
      expect((find.inputSchema as any).required).toBeUndefined();
      expect((find.inputSchema as any).properties.first).toMatchObject({ type: 'integer', default: 20 });
      expect((find.inputSchema as any).properties.status.enum).toContain('REDEEMED');
      expect(find.annotations).toMatchObject({ readOnlyHint: true });
    } finally {
      await mcp.close();
    }
  });

  it('a read tool answers its data as structured content', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.writer));
    try {
      const result = await mcp.client.callTool({ name: 'GetOrder', arguments: { ref: order.id } });
      expect(result.isError).toBeFalsy();
      expect(structured(result).campaign).toMatchObject({ id: order.id, uuid: order.uuid });
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(structured(result));
    } finally {
      await mcp.close();
    }
  });
});

describe('scopes', () => {
  it('a caller without rewards:write does not see the create tool and is refused calling it; nothing is sent upstream', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.reader));
    try {
      const names = (await mcp.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('FindRewards');
      expect(names).not.toContain('CreateReward');
      expect(names).not.toContain('ReadBalances'); // funds:read
      await gateway.upstreamDelta();
      const input = { id: 'refused-1', priceInCents: 1000, reward: { brand: 'sbxcoffeeus' }, contacts: [{ email: 'a@example.com' }] };
      const result = await mcp.client.callTool({ name: 'CreateReward', arguments: { input } });
      expect(result.isError).toBe(true);
      expect(structured(result).error).toMatchObject({ code: 'FORBIDDEN', missingScopes: ['rewards:write'], retryable: false });
      expect(structured(result).error.message).toBe('The API key "dashboard" may not use the tool CreateReward: it needs the scope rewards:write.');
      expect(await gateway.upstreamDelta()).toEqual({});
    } finally {
      await mcp.close();
    }
  });

  it('/metrics counts tool calls by tool and outcome, refusals included', async ({ gateway }) => {
    const url = await gateway.listen();
    const mcp = await connectMcp(url, auth(KEYS.reader));
    try {
      await mcp.client.callTool({ name: 'GetReward', arguments: { uuid: 'no-such-reward' } });
      await mcp.client.callTool({ name: 'ReadBalances', arguments: {} });
      await mcp.client.callTool({ name: 'NoSuchTool', arguments: {} });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^reward_gateway_mcp_tool_calls_total\{tool="GetReward",outcome="ok"\} [1-9]/m);
      expect(metrics).toMatch(/^reward_gateway_mcp_tool_calls_total\{tool="ReadBalances",outcome="refused"\} [1-9]/m);
      expect(metrics).toMatch(/^reward_gateway_mcp_tool_calls_total\{tool="unknown",outcome="refused"\} [1-9]/m);
      expect(metrics).toMatch(/^reward_gateway_graphql_operations_total\{operation_name="GetReward",[^}]*\} [1-9]/m);
    } finally {
      await mcp.close();
    }
  });

  it('a tool call is logged as its operation, under the tool’s name, with the caller’s request id', async ({ gatewayWith }) => {
    const lines: string[] = [];
    const gw = await gatewayWith({
      listen: true,
      env: { ...KEYS_ENV, MCP_ENABLED: 'true', LOG_LEVEL: 'info' },
      logTo: { write: (line: string) => void lines.push(line) },
    });
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: auth(KEYS.reader),
        'x-request-id': 'agent-request-1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'FindRewards', arguments: { first: 1 } } }),
    });
    expect(res.status).toBe(200);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'operation completed');
    expect(logged).toMatchObject({ operationName: 'FindRewards', operationType: 'query', requestId: 'agent-request-1', outcome: 'ok' });
  });

  it('the treasurer sees the balance tools and not the reward ones', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.treasurer));
    try {
      const names = (await mcp.client.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual(['AddFunds', 'ReadBalances']);
    } finally {
      await mcp.close();
    }
  });
});

describe('authentication (MCP authorization)', () => {
  it('no key is the catalogue 401 with WWW-Authenticate naming the resource metadata', async ({ gateway }) => {
    const url = await gateway.listen();
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`);
    expect((await res.json()).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('the protected resource metadata names the resource and the scopes', async ({ gateway }) => {
    const url = await gateway.listen();
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: `${url}/mcp`,
        authorization_servers: [],
        scopes_supported: expect.arrayContaining(['rewards:read', 'rewards:write']),
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('a message over MAX_BODY_BYTES is the catalogue 413, as a GraphQL request is', async ({ gateway }) => {
    const res = await fetch(`${await gateway.listen()}/mcp`, {
      method: 'POST',
      headers: { authorization: auth(KEYS.reader), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(100_001) } }),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('a browser page of an origin not in CORS_ORIGINS is refused 403 (DNS rebinding), before its key is read', async ({ gateway }) => {
    const res = await fetch(`${await gateway.listen()}/mcp`, {
      method: 'POST',
      headers: {
        origin: 'https://elsewhere.example',
        authorization: auth(KEYS.reader),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(403);
    expect((await res.json()).errors[0].extensions.code).toBe('CORS_ORIGIN_NOT_ALLOWED');
  });

  it('messages that run no operation spend from the caller’s rate, and past it are the catalogue 429', async ({ gatewayWith }) => {
    const gw = await gatewayWith({
      listen: true,
      env: { ...KEYS_ENV, MCP_ENABLED: 'true', RATE_LIMIT_PER_SECOND: '0.001', RATE_LIMIT_BURST: '2' },
    });
    const list = () =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { authorization: auth(KEYS.reader), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await refused.json()).errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('a body that is not JSON is a JSON-RPC parse error', async ({ gateway }) => {
    const res = await fetch(`${await gateway.listen()}/mcp`, {
      method: 'POST',
      headers: { authorization: auth(KEYS.reader), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": ',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('a method other than POST, GET and DELETE is 405, naming those', async ({ gateway }) => {
    const res = await fetch(`${await gateway.listen()}/mcp`, { method: 'PUT', headers: { authorization: auth(KEYS.reader) } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, GET, DELETE');
  });

  it('GET /mcp without a session is 400, naming the header: the stream is a session’s (resource subscriptions)', async ({ gateway }) => {
    const res = await fetch(`${await gateway.listen()}/mcp`, { headers: { authorization: auth(KEYS.reader), accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/Send the Mcp-Session-Id header the answer to initialize carried/);
  });
});
