import { describe, expect, vi } from 'vitest';
import { createGateway } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { upstreamClientFromConfig } from '../../src/upstream/from-config.js';
import { TEST_ENV } from '../support/gateway.js';
import { it } from '../support/test.js';
import { KEYS, KEYS_ENV } from '../security/keys.js';

// When /mcp is served: on in keyless development, off with API keys unless MCP_ENABLED=true; on by default
// without its operations folder (a copy of the built gateway alone) it stays off with a warning rather than
// keep the gateway from starting, while MCP_ENABLED=true without it fails the start.

const tools = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('MCP_ENABLED', () => {
  it('keyless development serves /mcp; with API keys it is off unless enabled', async ({ gatewayWith }) => {
    expect((await tools((await gatewayWith({ listen: true })).url)).status).toBe(200);
    expect((await tools((await gatewayWith({ listen: true, env: KEYS_ENV })).url, { authorization: `Bearer ${KEYS.reader.key}` })).status).toBe(404);
  });

  it('on by default without its operations folder: off, with a warning; asked for: the start fails', async ({ gatewayWith }) => {
    const lines: string[] = [];
    const plain = await gatewayWith({
      listen: true,
      env: { MCP_OPERATIONS_DIR: 'no-such-folder', LOG_LEVEL: 'warn' },
      logTo: { write: (line: string) => void lines.push(line) },
    });
    expect((await tools(plain.url)).status).toBe(404);
    expect(lines.map((line) => JSON.parse(line).msg)).toContain(
      'MCP is off: MCP_OPERATIONS_DIR no-such-folder does not exist, so there are no tools to serve at /mcp.',
    );
    await expect(gatewayWith({ env: { MCP_OPERATIONS_DIR: 'no-such-folder', MCP_ENABLED: 'true' } })).rejects.toThrow(
      /^MCP_OPERATIONS_DIR no-such-folder cannot be read \(ENOENT\)/,
    );
  });

  it('a start refused part-way closes what it had made: the metrics sampler no longer listens', async () => {
    // Made before MCP reads its folder; left subscribed, every refused start in a process that embeds the
    // gateway (this suite's workers, a supervisor trying again) added a listener to every request.
    const metrics = createMetrics();
    const closed = vi.spyOn(metrics, 'close');
    const config = loadConfig({ ...TEST_ENV, MCP_OPERATIONS_DIR: 'no-such-folder', MCP_ENABLED: 'true' });
    const client = upstreamClientFromConfig(config, { baseUrl: 'http://127.0.0.1:9', token: 'rg-sandbox-2026-11-29-tok-4417' });
    try {
      expect(() => createGateway({ config, client, metrics })).toThrow(/^MCP_OPERATIONS_DIR no-such-folder cannot be read/);
      expect(closed).toHaveBeenCalled();
    } finally {
      await client.close();
    }
  });
});
