import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { loadConfig } from '../../src/config.js';
import { createLogger, logLevel, type LogDestination } from '../../src/ops/logger.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { configuredSecrets, createRedactor } from '../../src/redaction.js';
import { createGateway, type Gateway } from '../../src/server.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { upstreamClientFromConfig } from '../../src/upstream-from-config.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';

// A real gateway on an ephemeral port in front of a real sandbox, for tests that go over HTTP.

export interface GraphQLResponse<T = any> {
  status: number;
  body: { data?: T | null; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] };
  text: string;
}

export interface TestGateway {
  url: string;
  sandbox: TestSandbox;
  gateway: Gateway;
  client: UpstreamClient;
  gql<T = any, V = Record<string, unknown>>(
    query: string | TypedDocumentNode<T, V>,
    variables?: V,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<T>>;
  /** Requests per sandbox route since the last call (or since start). */
  upstreamDelta(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Fast retries so fault tests finish quickly; everything else keeps the production defaults. */
export const TEST_ENV = {
  NODE_ENV: 'test',
  UPSTREAM_RETRY_BASE_MS: '5',
  UPSTREAM_RETRY_MAX_DELAY_MS: '20',
  UPSTREAM_RETRY_BUDGET_MS: '3000',
  UPSTREAM_TIMEOUT_MS: '3000',
  // Suites fire bursts of operations (fan-out, exactly-once); the rate-limit suite sets its own.
  RATE_LIMIT_PER_SECOND: '100000',
  RATE_LIMIT_BURST: '100000',
};

export async function startTestGateway(
  options: {
    sandbox?: SandboxOptions;
    env?: Record<string, string>;
    token?: string;
    /** Where log lines go (silent unless env sets LOG_LEVEL); the upstream token is a secret of the gateway's redactor. */
    logTo?: LogDestination;
  } = {},
): Promise<TestGateway> {
  const sandbox = await startTestSandbox(options.sandbox);
  const config = loadConfig({ ...TEST_ENV, ...options.env });
  const token = options.token ?? sandbox.sandbox.token;
  const redactor = createRedactor([token, ...configuredSecrets(config)]);
  const logger = createLogger({ level: logLevel(config), redactor, destination: options.logTo });
  const metrics = createMetrics();
  const client = upstreamClientFromConfig(config, { baseUrl: sandbox.sandbox.baseUrl, token }, { onCall: metrics.upstreamCall, logger });
  const gateway = createGateway({ config, client, logger, metrics, redactor });
  const url = await gateway.start(0);
  let seen: Record<string, number> = {};

  return {
    url,
    sandbox,
    gateway,
    client,
    async gql(query, variables, headers = {}) {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables }),
      });
      const text = await res.text();
      return { status: res.status, body: JSON.parse(text), text };
    },
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
    async close() {
      await gateway.stop(1_000);
      await client.close();
      await sandbox.close();
    },
  };
}
