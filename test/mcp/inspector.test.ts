import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevelopmentGateway, type DevelopmentGateway } from '../support/gateway-process.js';

// The official MCP Inspector's CLI (@modelcontextprotocol/inspector-cli) against the gateway as `npm start` runs it
// for a developer (keyless development, the embedded sandbox): it lists the tools, calls a read and a create, and
// the sandbox counts one order. What an agent's host sees of /mcp, from a client that is not ours. The gateway is
// the bundle of the same sources (startDevelopmentGateway), ~1 CPU-s a start against ~5 through npm and tsx: what
// the CLI sees is /mcp, and `npm start` itself stays under test in test/ops/main-process.test.ts.

const require = createRequire(import.meta.url);
// The CLI finds its own package.json relative to the working directory: it runs from its build folder.
const inspectorDir = dirname(require.resolve('@modelcontextprotocol/inspector-cli/build/index.js'));
const run = promisify(execFile);

let gateway: DevelopmentGateway;
let url: string;
let controlUrl: string;

beforeAll(async () => {
  gateway = startDevelopmentGateway();
  ({ url, controlUrl } = await gateway.listening);
}, 120_000);

afterAll(() => gateway?.stop());

/** One Inspector CLI run against /mcp; its stdout is the JSON of the answer. */
async function inspector(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [join(inspectorDir, 'index.js'), `${url}/mcp`, '--transport', 'http', ...args], {
    cwd: inspectorDir,
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

describe('the MCP Inspector CLI against the development gateway', () => {
  it('lists the tools of operations/', async () => {
    const { tools } = await inspector('--method', 'tools/list');
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(expect.arrayContaining(['CreateReward', 'FindRewards', 'ReadBalances']));
  }, 60_000);

  it('calls a read', async () => {
    const result = await inspector('--method', 'tools/call', '--tool-name', 'ReadBalances');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.funds.balances.map((b: { currency: string }) => b.currency)).toContain('USD');
  }, 60_000);

  it('calls a create, twice with the same id, and the sandbox counts one order', async () => {
    const id = `inspector-${process.pid}-${Date.now()}`;
    const input = JSON.stringify({
      id,
      priceInCents: 1000,
      reward: { brand: 'sbxcoffeeus' },
      contacts: [{ email: 'r@example.com' }],
      subject: 's',
      message: 'm',
    });
    const first = await inspector('--method', 'tools/call', '--tool-name', 'CreateReward', '--tool-arg', `input=${input}`);
    const again = await inspector('--method', 'tools/call', '--tool-name', 'CreateReward', '--tool-arg', `input=${input}`);
    expect(first.structuredContent.createCampaign).toMatchObject({ __typename: 'CreateCampaignPayload', orderId: id, replayed: false });
    expect(again.structuredContent.createCampaign).toMatchObject({ orderUuid: first.structuredContent.createCampaign.orderUuid, replayed: true });
    const stats = (await (await fetch(`${controlUrl}stats`)).json()) as { creates: Record<string, number> };
    expect(stats.creates[id]).toBe(1);
  }, 60_000);
});
