import { z } from 'zod';
import { configArea, count, documented, flag, type AreaSettings } from '../shared/config-area.js';

// The MCP area's part of the configuration: whether /mcp serves agents, and where the operations its tools are
// made of are read from.

export const mcpArea = configArea({
  title: 'MCP (agents)',
  variables: {
    MCP_ENABLED: documented(flag.optional(), {
      description:
        '`/mcp` serves the Model Context Protocol (Streamable HTTP, stateless; sessions only for resource subscriptions): each operation of `MCP_OPERATIONS_DIR` is a tool, called with the same API keys and tokens as GraphQL ([docs/mcp.md](docs/mcp.md))',
      unsetMeans: 'on in keyless development only (no API keys, no token issuer) and when `MCP_OPERATIONS_DIR` exists, off otherwise',
    }),
    MCP_DEVELOPMENT_TOOLS: documented(flag.default(false), {
      description:
        'adds two tools for exploring the API from an agent: `SearchSchema` (types and fields matching words) and `ExecuteGraphQL` (any document, run as the caller like any GraphQL request); refused in production, where only the trusted operations are tools',
    }),
    MCP_MAX_SUBSCRIPTIONS: documented(count.default(20), {
      description:
        'the resources (orders) one MCP session may subscribe to at once; each is followed by a live query of the caller, so `LIVE_QUERY_MAX_PER_KEY` bounds them too',
    }),
    MCP_OPERATIONS_DIR: documented(z.string().min(1).default('operations'), {
      description:
        'the folder of `.graphql` operations that become tools (each file one operation; its leading `#` comment is the tool description); with `TRUSTED_DOCUMENTS` only those in the manifest',
    }),
  },
  rules({ values, production }) {
    return production && values.MCP_DEVELOPMENT_TOOLS
      ? ['MCP_DEVELOPMENT_TOOLS must not be set in production: agents there run only the reviewed operations of MCP_OPERATIONS_DIR']
      : [];
  },
});

export type McpSettings = AreaSettings<typeof mcpArea>;
