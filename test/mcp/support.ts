import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// An MCP client of the official SDK connected to a gateway's /mcp, as an agent's host would be.

export interface McpTestClient {
  client: Client;
  close(): Promise<void>;
}

export async function connectMcp(baseUrl: string, authorization?: string): Promise<McpTestClient> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: authorization ? { authorization } : {} },
  });
  const client = new Client({ name: 'reward-gateway-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** A tool result's structured content, typed loosely for assertions. */
export const structured = (result: unknown): any => (result as { structuredContent?: unknown }).structuredContent;
