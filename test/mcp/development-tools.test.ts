import { describe, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { testWith } from '../support/test.js';
import { KEYS, KEYS_ENV } from '../security/keys.js';
import { connectMcp, structured } from './support.js';

// MCP_DEVELOPMENT_TOOLS: SearchSchema and ExecuteGraphQL beside the operations' tools, for exploring the API
// from an agent in development. A document the model writes runs as the caller through the same pipeline, so
// the scopes of its fields hold; production refuses the setting at start-up.

const it = testWith({ env: { ...KEYS_ENV, MCP_ENABLED: 'true', MCP_DEVELOPMENT_TOOLS: 'true' } });
const auth = (key: { key: string }) => `Bearer ${key.key}`;

describe('development tools', () => {
  it('SearchSchema finds the fields a task needs', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.reader));
    try {
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['SearchSchema', 'ExecuteGraphQL']));
      const result = await mcp.client.callTool({ name: 'SearchSchema', arguments: { query: 'idempotency order' } });
      expect(structured(result).matches).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'CreateCampaignInput', field: 'id', signature: 'id: ID!' })]),
      );
    } finally {
      await mcp.close();
    }
  });

  it('ExecuteGraphQL runs a document as the caller: its fields’ scopes hold', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.reader));
    try {
      const result = await mcp.client.callTool({ name: 'ExecuteGraphQL', arguments: { query: '{ regions { id } funds { observedAt } }' } });
      expect(result.isError).toBeFalsy();
      expect(structured(result).regions.length).toBeGreaterThan(0);
      expect(structured(result).funds).toBeNull();
      expect(structured(result).errors).toEqual([expect.objectContaining({ code: 'FORBIDDEN', path: ['funds'], missingScopes: ['funds:read'] })]);
    } finally {
      await mcp.close();
    }
  });

  it('are off unless set, and refused in production', async ({ gatewayWith }) => {
    const plain = await gatewayWith({ listen: true });
    const mcp = await connectMcp(plain.url);
    try {
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).not.toContain('ExecuteGraphQL');
      const result = await mcp.client.callTool({ name: 'ExecuteGraphQL', arguments: { query: '{ regions { id } }' } });
      expect(structured(result).error.message).toMatch(/^No tool is named ExecuteGraphQL/);
    } finally {
      await mcp.close();
    }
    expect(() => loadConfig({ NODE_ENV: 'production', MCP_DEVELOPMENT_TOOLS: 'true' })).toThrow(
      /MCP_DEVELOPMENT_TOOLS must not be set in production/,
    );
  });
});
