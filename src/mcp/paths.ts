// Where /mcp and its protected resource metadata (RFC 9728) are served: the routes the gateway knows before the MCP
// SDK is loaded (from-config.ts loads it only when /mcp is on).

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
/** Every path endpoint.ts serves. */
export const MCP_ROUTE_PATHS = [MCP_PATH, RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}${MCP_PATH}`] as const;
