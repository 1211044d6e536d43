import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { createEmailOrder, uniqueId } from '../support/fixtures.js';
import { testWith } from '../support/test.js';
import { KEYS, KEYS_ENV } from '../security/keys.js';
import { connectMcp, structured } from './support.js';

// An order as an MCP resource, reward://campaign/<uuid>: CreateReward links to it, resources/read reads it with
// GetOrder's operation as the caller, and only callers who may run GetOrder see its template or read it.

const it = testWith({ sandboxOptions: { balances: { USD: 100_000_000 } }, env: { ...KEYS_ENV, MCP_ENABLED: 'true' } });
const auth = (key: { key: string }) => `Bearer ${key.key}`;

describe('orders as resources', () => {
  it('CreateReward answers with the order’s resource link, and reading it gives the order', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.writer));
    try {
      const input = {
        id: uniqueId('linked'),
        priceInCents: 1000,
        reward: { brand: 'sbxcoffeeus' },
        contacts: [{ email: 'r@example.com' }],
        subject: 's',
        message: 'm',
      };
      const created = await mcp.client.callTool({ name: 'CreateReward', arguments: { input } });
      const { orderUuid } = structured(created).createCampaign;
      const link = (created.content as { type: string; uri?: string }[]).find((item) => item.type === 'resource_link');
      expect(link).toMatchObject({ uri: `reward://campaign/${orderUuid}`, name: `order ${input.id}`, mimeType: 'application/json' });

      const read = await mcp.client.readResource({ uri: link!.uri! });
      expect(read.contents).toHaveLength(1);
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: input.id, uuid: orderUuid });
      expect((await mcp.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['reward://campaign/{uuid}']);
    } finally {
      await mcp.close();
    }
  });

  it('an order that does not exist, or a URI that names none, is resource-not-found', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.reader));
    try {
      for (const uri of ['reward://campaign/00000000-0000-4000-8000-000000000000', 'reward://gift/abc', 'reward://campaign/a/b']) {
        const error = await mcp.client.readResource({ uri }).then(
          () => null,
          (thrown: unknown) => thrown,
        );
        expect(error, uri).toBeInstanceOf(McpError);
        expect((error as McpError).code, uri).toBe(-32002);
      }
    } finally {
      await mcp.close();
    }
  });

  it('a caller who may not run GetOrder sees no template and is refused reading an order', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    const mcp = await connectMcp(await gateway.listen(), auth(KEYS.treasurer));
    try {
      expect((await mcp.client.listResourceTemplates()).resourceTemplates).toEqual([]);
      const error = await mcp.client.readResource({ uri: `reward://campaign/${order.uuid}` }).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect((error as McpError).code).toBe(ErrorCode.InvalidRequest);
      expect((error as McpError).message).toMatch(/may not use the tool GetOrder: it needs the scope rewards:read/);
    } finally {
      await mcp.close();
    }
  });
});
