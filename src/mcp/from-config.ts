import { existsSync } from 'node:fs';
import type { McpSubscriptionRecords } from '../cluster/mcp-subscriptions.js';
import { configuredIssuers, type IdentitySettings } from '../identity/config.js';
import { schema } from '../schema/index.js';
import type { SecuritySettings } from '../security/config.js';
import { loadTrustedDocuments } from '../security/use-trusted-documents.js';
import type { McpSettings } from './config.js';
import type { McpEndpoint, McpEndpointOptions, Route } from './endpoint.js';
import { memoryMcpSubscriptions } from './memory-subscriptions.js';
import type { McpServerOptions } from './mcp-server.js';
import { loadOperationTools } from './operation-tools.js';
import { MCP_ROUTE_PATHS } from './paths.js';

// /mcp as the configuration has it: on when MCP_ENABLED says so, or, unset, in keyless development only (there
// the development caller has every scope and the gateway listens on loopback, so a local agent connects with no
// set-up; anywhere else an operator turns it on knowingly).

/** The version the MCP server names in its handshake: of its tools' contract, not of the package. */
const SERVER_VERSION = '1.0.0';

type McpFromConfigSettings = McpSettings &
  IdentitySettings &
  Pick<SecuritySettings, 'GATEWAY_API_KEYS' | 'TRUSTED_DOCUMENTS' | 'MAX_BODY_BYTES' | 'CORS_ORIGINS'>;

export function mcpEnabled(config: McpFromConfigSettings): boolean {
  const keyless = !config.GATEWAY_API_KEYS?.length && configuredIssuers(config).length === 0;
  return config.MCP_ENABLED ?? keyless;
}

/**
 * The endpoint, or null when MCP is off. On by default (keyless development) and without its operations folder
 * (a copy of the built gateway alone), MCP stays off with a warning rather than keep the gateway from starting;
 * asked for with MCP_ENABLED=true, a folder that cannot be read fails the start.
 */
export function mcpFromConfig(
  config: McpFromConfigSettings,
  {
    yoga,
    authenticate,
    rateLimit,
    onToolCall,
    onWatchFailed,
    sharedSubscriptions,
  }: Pick<McpServerOptions, 'yoga' | 'onToolCall'> &
    Pick<McpEndpointOptions, 'authenticate' | 'rateLimit' | 'onWatchFailed'> & {
      /** Cluster mode: the sessions' subscriptions in Redis, for every replica; in memory without. */
      sharedSubscriptions: McpSubscriptionRecords | undefined;
    },
  warn: (message: string) => void,
): McpEndpoint | null {
  if (!mcpEnabled(config)) return null;
  if (config.MCP_ENABLED === undefined && !existsSync(config.MCP_OPERATIONS_DIR)) {
    warn(`MCP is off: MCP_OPERATIONS_DIR ${config.MCP_OPERATIONS_DIR} does not exist, so there are no tools to serve at /mcp.`);
    return null;
  }
  const trusted = config.TRUSTED_DOCUMENTS ? loadTrustedDocuments(config.TRUSTED_DOCUMENTS) : null;
  // Read now, so a folder that cannot be read fails the start.
  const tools = loadOperationTools(schema, config.MCP_OPERATIONS_DIR, trusted);
  // The MCP SDK (its protocol's schemas, a JSON Schema validator, an HTTP adapter) is loaded only here, when /mcp
  // is on: imported statically it took about 2.5 MB of every gateway's idle memory (five starts of the production
  // build, median 101.1 → 98.6 MB; `node --import tsx bench/memory.ts idle`), and most gateways never serve /mcp
  // (it is off by default wherever keys are configured). Loading starts at once, so the first message does not
  // wait for it; a request that comes sooner waits for the same promise.
  const endpoint = import('./endpoint.js').then(({ createMcpEndpoint }) =>
    createMcpEndpoint({
      server: {
        yoga,
        schema,
        tools,
        version: SERVER_VERSION,
        developmentTools: config.MCP_DEVELOPMENT_TOOLS,
        onToolCall,
        subscriptions: sharedSubscriptions ?? memoryMcpSubscriptions(),
        maxSubscriptions: config.MCP_MAX_SUBSCRIPTIONS,
      },
      onWatchFailed,
      authenticate,
      rateLimit,
      corsOrigins: config.CORS_ORIGINS ?? [],
      maxBodyBytes: config.MAX_BODY_BYTES,
      issuers: configuredIssuers(config).map((issuer) => issuer.issuer),
      tokenGraceMs: config.AUTH_JWT_CLOCK_TOLERANCE_S * 1000,
    }),
  );
  // Only a broken install fails here (a chunk of the build missing): said once, and /mcp answers 500 until restarted.
  endpoint.catch((error: unknown) => warn(`MCP could not be loaded: ${error instanceof Error ? error.message : String(error)}`));
  const route =
    (path: string): Route =>
    async (req, res) =>
      (await endpoint).routes[path]!(req, res);
  return { routes: Object.fromEntries(MCP_ROUTE_PATHS.map((path) => [path, route(path)])) };
}
