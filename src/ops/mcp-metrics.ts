import { Counter, type Registry } from 'prom-client';

// MCP tool calls by tool and outcome. A call's operation is also counted, timed and logged with the GraphQL
// operations under the tool's name (operation metrics and log); this adds what only /mcp knows: the calls refused
// before any operation ran (an unknown tool, scopes the caller lacks) and the failures returned as results.

export type McpToolOutcome = 'ok' | 'failed' | 'refused';

export function mcpMetrics(registry: Registry): (tool: string, outcome: McpToolOutcome) => void {
  const calls = new Counter({
    name: 'reward_gateway_mcp_tool_calls_total',
    help: 'MCP tool calls, by tool and outcome (ok, failed: a failure returned as the result, refused: before running)',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  return (tool, outcome) => calls.inc({ tool, outcome });
}
