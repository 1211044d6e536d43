import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { loadConfig } from '../../src/config.js';
import { createLogger, logLevel, type LogDestination } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { configuredSecrets, createRedactor } from '../../src/redaction/redaction.js';
import { createGateway, type Gateway } from '../../src/app.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { upstreamClientFromConfig } from '../../src/upstream/from-config.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';

// A gateway in front of a real sandbox: in process (`createTestGateway`, requests go through `yoga.fetch`, no
// socket) or on an ephemeral port (`startTestGateway`, for tests about HTTP, SSE or WebSockets themselves).
// test/support/test.ts offers both as vitest fixtures.

export interface GraphQLResponse<T = any> {
  status: number;
  body: { data?: T | null; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] };
  text: string;
}

export interface InProcessGateway {
  sandbox: TestSandbox;
  gateway: Gateway;
  client: UpstreamClient;
  gql<T = any, V = Record<string, unknown>>(
    query: string | TypedDocumentNode<T, V>,
    variables?: V,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<T>>;
  /** A request to the gateway's yoga (path from `/`), answered in process: only yoga's routes, no socket. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Starts listening on an ephemeral port (once) and returns the base URL, for tests about the socket itself. */
  listen(): Promise<string>;
  /** Requests per sandbox route since the last call (or since start). */
  upstreamDelta(): Promise<Record<string, number>>;
  /** Stops the gateway and its upstream client; the sandbox is left to whoever started it. */
  close(): Promise<void>;
}

export interface TestGateway extends Omit<InProcessGateway, 'close'> {
  url: string;
  /** Stops the gateway, its upstream client and its sandbox. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  env?: Record<string, string>;
  token?: string;
  /** Where log lines go (silent unless env sets LOG_LEVEL); the upstream token is a secret of the gateway's redactor. */
  logTo?: LogDestination;
  /** Only `env`, none of TEST_ENV's shortcuts: every default as an operator gets it (test/as-configured/). */
  asConfigured?: boolean;
}

/** Fast retries so fault tests finish quickly; everything else keeps the production defaults. */
export const TEST_ENV = {
  NODE_ENV: 'test',
  UPSTREAM_RETRY_BASE_MS: '5',
  UPSTREAM_RETRY_MAX_DELAY_MS: '20',
  UPSTREAM_RETRY_BUDGET_MS: '3000',
  UPSTREAM_TIMEOUT_MS: '3000',
  // Suites inject runs of upstream failures to test retries and recovery; the breaker suite sets its own.
  UPSTREAM_BREAKER_FAILURES: '1000000',
  // Suites fire bursts of operations (fan-out, exactly-once); the rate-limit suite sets its own.
  RATE_LIMIT_PER_SECOND: '100000',
  RATE_LIMIT_BURST: '100000',
  // Suites count upstream calls per operation; the read cache's own suites (test/cache/) turn it on.
  CACHE_TTL_MS: '0',
};

/** What a test gateway is built of over any reward API: a sandbox, or a scripted one (test/upstream/quirks-server.ts). */
export interface GatewayOver {
  gateway: Gateway;
  client: UpstreamClient;
  /** Starts listening on an ephemeral port (once) and returns the base URL. */
  listen(): Promise<string>;
  /** Stops the gateway and its upstream client. */
  close(): Promise<void>;
}

/** A gateway over the reward API at `upstream`, not listening, with TEST_ENV and `options.env`; the token is a secret of its redactor. */
export function gatewayOver(upstream: { baseUrl: string; token: string }, options: Omit<GatewayOptions, 'token'> = {}): GatewayOver {
  const config = loadConfig({ ...(options.asConfigured ? {} : TEST_ENV), ...options.env });
  const redactor = createRedactor([upstream.token, ...configuredSecrets(config)]);
  const logger = createLogger({ level: logLevel(config), redactor, destination: options.logTo });
  const metrics = createMetrics();
  const client = upstreamClientFromConfig(config, upstream, { onCall: metrics.upstreamCall, logger, redact: redactor.redact });
  const gateway = refusedClosing(client, () => createGateway({ config, client, logger, metrics, redactor }));
  let listening: Promise<string> | undefined;
  return {
    gateway,
    client,
    listen: () => (listening ??= gateway.start(0)),
    async close() {
      await gateway.stop(1_000);
      await client.close();
    },
  };
}

/** What `make` returns; if it throws (a start refused), `client` is closed first, as no gateway will close it. */
function refusedClosing<T>(client: UpstreamClient, make: () => T): T {
  try {
    return make();
  } catch (error) {
    void client.close();
    throw error;
  }
}

/** A gateway over `sandbox`, not listening: `gql` and `fetch` go through `yoga.fetch`. */
export function createTestGateway(sandbox: TestSandbox, options: GatewayOptions = {}): InProcessGateway {
  const { gateway, client, listen, close } = gatewayOver(
    { baseUrl: sandbox.sandbox.baseUrl, token: options.token ?? sandbox.sandbox.token },
    { env: options.env, logTo: options.logTo, asConfigured: options.asConfigured },
  );
  const fetchYoga = async (path: string, init?: RequestInit) => gateway.yoga.fetch(`http://127.0.0.1${path}`, init ?? {});
  let seen: Record<string, number> = {};

  return {
    sandbox,
    gateway,
    client,
    gql: graphqlOver((init) => fetchYoga('/graphql', init)),
    fetch: fetchYoga,
    listen,
    async upstreamDelta() {
      const { requests } = await sandbox.control.stats();
      const delta: Record<string, number> = {};
      for (const [route, n] of Object.entries(requests)) {
        const d = n - (seen[route] ?? 0);
        if (d) delta[route] = d;
      }
      seen = { ...requests };
      return delta;
    },
    close,
  };
}

/** A sandbox of its own and a gateway in front of it, listening on an ephemeral port; `gql` goes over HTTP. */
export async function startTestGateway(options: GatewayOptions & { sandbox?: SandboxOptions } = {}): Promise<TestGateway> {
  const sandbox = await startTestSandbox(options.sandbox);
  const inProcess = createTestGateway(sandbox, options);
  const url = await inProcess.listen();
  return {
    ...inProcess,
    url,
    gql: graphqlOver((init) => fetch(`${url}/graphql`, init)),
    async close() {
      await inProcess.close();
      await sandbox.close();
    },
  };
}

/** POSTs an operation as JSON with `send` and reads the answer. */
function graphqlOver(send: (init: RequestInit) => Promise<Response>): InProcessGateway['gql'] {
  return async (query, variables, headers = {}) => {
    const res = await send({
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables }),
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text };
  };
}
