import { describe, expect } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { testWith } from '../support/test.js';
import { KEYS, KEYS_ENV } from '../security/keys.js';
import { connectMcp } from './support.js';
import { inMemoryTracing } from '../support/in-memory-tracing.js';

// Each MCP tool call is a span, `tools/call <tool>` (MCP's semantic conventions: mcp.method.name,
// gen_ai.tool.name), the parent of its operation's span; a failed call's span is an error with its type. A name
// that is no tool is `unknown` there: the client's text could be anything, a key too. In process: an in-memory
// exporter behind the global tracer provider (so this file runs in a module graph of its own).

const { exporter } = inMemoryTracing();

const it = testWith({
  sandboxOptions: { balances: { USD: 100_000_000 } },
  env: { ...KEYS_ENV, MCP_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
});

describe('MCP tool spans', () => {
  it('a tool call is a span, the parent of its operation’s; a refused one is an error; an unknown name is unknown', async ({ gateway }) => {
    const url = await gateway.listen();
    const writer = await connectMcp(url, `Bearer ${KEYS.writer.key}`);
    const reader = await connectMcp(url, `Bearer ${KEYS.reader.key}`);
    try {
      const input = {
        id: uniqueId('traced'),
        priceInCents: 1000,
        reward: { brand: 'sbxcoffeeus' },
        contacts: [{ email: 'traced@example.com' }],
        subject: 'Thank you',
        message: 'Traced.',
      };
      expect((await writer.client.callTool({ name: 'CreateReward', arguments: { input } })).isError).toBeUndefined();
      expect((await reader.client.callTool({ name: 'CreateReward', arguments: { input } })).isError).toBe(true);
      expect((await reader.client.callTool({ name: KEYS.writer.key, arguments: {} })).isError).toBe(true);
    } finally {
      await writer.close();
      await reader.close();
    }
    const spans = exporter.getFinishedSpans();
    const tools = spans.filter((span) => span.attributes['mcp.method.name'] === 'tools/call');
    expect(tools.map((span) => [span.name, span.attributes['gen_ai.tool.name'], span.status.code, span.attributes['error.type']])).toEqual([
      ['tools/call CreateReward', 'CreateReward', 0, undefined],
      ['tools/call CreateReward', 'CreateReward', 2, 'FORBIDDEN'],
      ['tools/call unknown', 'unknown', 2, 'tool_error'],
    ]);
    const operation = spans.find((span) => span.name === 'mutation CreateReward');
    expect(operation?.parentSpanContext?.spanId).toBe(tools[0]!.spanContext().spanId);
    expect(JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events]))).not.toContain(KEYS.writer.key.slice(-16));
  });
});
