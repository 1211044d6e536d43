import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createEmailOrder } from '../support/fixtures.js';
import { testWith } from '../support/test.js';
import { connectMcp, structured } from './support.js';

// With TRUSTED_DOCUMENTS the gateway runs the manifest's documents only: the tools are the operations the
// manifest holds, and each call sends its document id, never the text.

const manifest = fileURLToPath(new URL('../../operations/__generated__/persisted-documents.json', import.meta.url));
// The operations folder plus one operation the manifest lacks.
const folder = mkdtempSync(join(tmpdir(), 'mcp-operations-'));
cpSync(fileURLToPath(new URL('../../operations', import.meta.url)), folder, { recursive: true, filter: (path) => !path.includes('__generated__') });
writeFileSync(join(folder, 'unreviewed.graphql'), '# Not in the manifest.\nquery Unreviewed { regions { id } }\n');

const it = testWith({
  env: { TRUSTED_DOCUMENTS: manifest, MCP_OPERATIONS_DIR: folder, POLL_INTERVAL_MS: '50', POLL_INTERVAL_FLOOR_MS: '10' },
});
it.afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('tools in trusted-documents mode', () => {
  it('lists only the manifest’s operations and runs them by document id', async ({ gateway }) => {
    const mcp = await connectMcp(await gateway.listen());
    try {
      const names = (await mcp.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('ReadBalances');
      expect(names).not.toContain('Unreviewed');
      // Were the text sent, the trusted-documents plugin would refuse it as PERSISTED_QUERY_ONLY.
      const result = await mcp.client.callTool({ name: 'ReadBalances', arguments: {} });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(structured(result).funds.balances.length).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
  });

  it('follows a subscribed order by GetOrder’s document id too (its live query is the manifest’s document)', async ({ gateway, sandbox }) => {
    const order = await createEmailOrder(sandbox, { recipients: 1 });
    await sandbox.control.stats();
    const gifts = await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`);
    const mcp = await connectMcp(await gateway.listen());
    try {
      const uri = `reward://campaign/${order.uuid}`;
      const updated = new Promise<string>((resolve) =>
        mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => resolve(params.uri)),
      );
      await mcp.client.subscribeResource({ uri });
      await sandbox.control.redeem(gifts.body.gifts[0].uuid);
      expect(await updated).toBe(uri);
    } finally {
      await mcp.close();
    }
  });
});
