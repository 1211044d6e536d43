import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { uniqueId } from '../support/fixtures.js';
import type { TestSandbox } from '../support/sandbox.js';

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

/** A caller's credential as sent after `Bearer `: an API key of the test's keys, or `{ key: token }`. */
export const auth = (key: { key: string }) => `Bearer ${key.key}`;

/** The URIs of the resources-updated notifications a client receives, and a wait for the next one of `uri`. */
export function updates(mcp: McpTestClient) {
  const seen: string[] = [];
  const waiting: { uri: string; resolve: () => void }[] = [];
  mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
    seen.push(params.uri);
    for (const wait of waiting.filter((w) => w.uri === params.uri)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve();
    }
  });
  return { seen, next: (uri: string) => new Promise<void>((resolve) => waiting.push({ uri, resolve })) };
}

/**
 * An order made with the CreateReward tool, once the sandbox has finished making it (the order CREATED, its
 * emails delivered: what the sandbox does at the next request), so that what follows changes only by the test.
 */
export async function createOrder(mcp: McpTestClient, sandbox: TestSandbox, recipients = 1): Promise<{ uri: string; gifts: string[] }> {
  const input = {
    id: uniqueId('followed'),
    priceInCents: 1000,
    reward: { brand: 'sbxcoffeeus' },
    contacts: Array.from({ length: recipients }, (_, i) => ({ email: `agent-${i}@example.com` })),
    subject: 'Thank you',
    message: 'For the review.',
  };
  const created = await mcp.client.callTool({ name: 'CreateReward', arguments: { input } });
  const uri = `reward://campaign/${structured(created).createCampaign.orderUuid}`;
  await sandbox.control.stats();
  const read = await mcp.client.readResource({ uri });
  const order = JSON.parse((read.contents[0] as { text: string }).text);
  return { uri, gifts: order.gifts.edges.map((edge: { node: { uuid: string } }) => edge.node.uuid) };
}

/** createOrder through a client of its own on `baseUrl`, closed after: the order is made, the test holds no client. */
export async function createOrderAt(baseUrl: string, authorization: string, sandbox: TestSandbox): Promise<{ uri: string; gifts: string[] }> {
  const mcp = await connectMcp(baseUrl, authorization);
  try {
    return await createOrder(mcp, sandbox);
  } finally {
    await mcp.close();
  }
}

export const headersOf = (key: { key: string }, session?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: auth(key),
  ...(session && { 'mcp-session-id': session }),
});

/** A session of `key`'s, by hand: the id initialize's answer carries. */
export async function initialize(url: string, key: { key: string }): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: headersOf(key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'by-hand', version: '1' } },
    }),
  });
  await res.body?.cancel();
  return res.headers.get('mcp-session-id')!;
}

export async function message(url: string, key: { key: string }, session: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: headersOf(key, session),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
}

/** A session's event stream (GET /mcp), read by hand: the JSON-RPC messages it carried, and a wait for the next. */
export function openStream(url: string, key: { key: string }, session: string) {
  const controller = new AbortController();
  const messages: unknown[] = [];
  let wake: () => void = () => undefined;
  let status = 0;
  const ended = (async () => {
    const res = await fetch(`${url}/mcp`, { headers: { ...headersOf(key, session), accept: 'text/event-stream' }, signal: controller.signal });
    status = res.status;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('');
        buffer = buffer.slice(end + 2);
        if (data) messages.push(JSON.parse(data));
        wake();
      }
    }
  })().catch(() => undefined);
  let read = 0;
  return {
    messages,
    /** The HTTP status the stream was answered with (0 until then). */
    status: () => status,
    /** Settles when the stream ended, by either side. */
    ended,
    async next(): Promise<unknown> {
      while (messages.length <= read) await new Promise<void>((resolve) => (wake = resolve));
      return messages[read++];
    },
    close: () => controller.abort(),
  };
}

/** The live queries open on the gateway, as /metrics says. */
export async function liveQueriesOpen(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^reward_gateway_live_queries (\d+)$/m.exec(text)?.[1]);
}
