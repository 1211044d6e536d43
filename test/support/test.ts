/* eslint-disable no-empty-pattern -- vitest reads a fixture's dependencies from its destructuring, so none is `{}` */
import { test as base } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import type { Scope } from '../../src/security/scopes.js';
import { captureClient, type Captured } from '../upstream/helpers.js';
import { startQuirksServer, type QuirksServer } from '../upstream/quirks-server.js';
import { startRedis, type TestRedis } from './cluster.js';
import { createTestGateway, startTestGateway, type GatewayOptions, type InProcessGateway, type TestGateway } from './gateway.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';

// The suites' `test`/`it`: vitest fixtures for the sandbox, a gateway over it, its API keys, a Redis server
// and a scripted upstream (quirks), in place of a beforeAll/afterAll pair per file. Fixtures are lazy: a test (or a `test.beforeAll`/
// `test.afterEach` of this `test`) sets up only what it destructures, and what those need. A file that needs
// other options than the defaults takes a `test` of its own with them:
//
//   const test = testWith({ env: { UPSTREAM_RETRY_ATTEMPTS: '2' }, sandboxOptions: { balances: { USD: 0 } } });
//   test('…', async ({ gateway, sandbox }) => { … });
//
// and adds fixtures of its own to it with `testWith({ … }).extend('order', { scope: 'file' }, …)`. Not
// `test.override`: the in-process files of a worker share this module (isolate: false in vitest.config.ts),
// and a top-level override replaces the fixtures of the one shared `test`, for every file after it.
//
// The helpers these wrap (startTestSandbox, createTestGateway, startTestGateway, startRedis) stay for the
// suites that need several of a kind or a lifetime of their own.

/** A gateway API key as GATEWAY_API_KEYS lists it. */
export interface ApiKey {
  name: string;
  key: string;
  scopes: Scope[];
}

/** Keys named after their holders, each with the scopes given: `apiKeys({ reader: ['rewards:read'] })`. */
export function apiKeys<N extends string>(scopes: Record<N, Scope[]>): Record<N, ApiKey> {
  const entries = Object.entries<Scope[]>(scopes).map(([name, granted]) => [
    name,
    { name, key: `test-key-${name}-0123456789abcdef0123`, scopes: granted },
  ]);
  return Object.fromEntries(entries) as Record<N, ApiKey>;
}

/** The Authorization header of a key. */
export const bearer = (key: { key: string }) => ({ authorization: `Bearer ${key.key}` });

const shared = base
  // Options of the file's sandbox (balances, latency…). Set per file with testWith.
  .extend('sandboxOptions', { scope: 'file' }, {} as SandboxOptions)
  // Settings the file's gateway adds to TEST_ENV. Set per file with testWith.
  .extend('env', { scope: 'file' }, {} as Record<string, string>)
  // The gateway's API keys (GATEWAY_API_KEYS), by holder; none by default: development mode, every caller has
  // every scope. Set per file with testWith({ keys: apiKeys({ … }) }); send one with bearer(keys.x).
  .extend('keys', { scope: 'file' }, {} as Record<string, ApiKey>)
  // Where the file's gateway writes its log lines (silent unless env sets LOG_LEVEL). Set per file.
  .extend('logTo', { scope: 'file' }, undefined as GatewayOptions['logTo'])
  // Lifetime: the file. Started on first use, closed after the file's last test; tests share it (and its
  // faults and clock: a suite that sets faults clears them in test.afterEach).
  .extend('sandbox', { scope: 'file' }, async ({ sandboxOptions }, { onCleanup }): Promise<TestSandbox> => {
    const sandbox = await startTestSandbox(sandboxOptions);
    onCleanup(() => sandbox.close());
    return sandbox;
  })
  // Lifetime: the file. A gateway over the file's sandbox with `env`, `keys` and `logTo`, not listening:
  // requests go through yoga.fetch (its routes only: /graphql and /ready, not /, /health or /metrics) until a
  // test calls its listen(). Stopped after the file's last test, before the sandbox.
  .extend('gateway', { scope: 'file' }, async ({ sandbox, env, keys, logTo }, { onCleanup }): Promise<InProcessGateway> => {
    const configured = Object.values(keys);
    const gateway = createTestGateway(sandbox, {
      env: { ...env, ...(configured.length ? { GATEWAY_API_KEYS: JSON.stringify(configured) } : {}) },
      logTo,
    });
    onCleanup(() => gateway.close());
    return gateway;
  })
  // Lifetime: the file. A redis-server of the file's own (free port, nothing saved), started only when a test
  // uses it and stopped after the file's last test. A file's gateway uses it with
  // testWith().override('env', { scope: 'file' }, ({ redis }) => ({ REDIS_URL: redis.url })).
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestRedis> => {
    const redis = await startRedis();
    onCleanup(() => redis.stop());
    return redis;
  })
  // Lifetime: the test. A scripted reward API (test/upstream/quirks-server.ts) with no answers yet, closed
  // after the test: each test scripts its routes and reads what was sent.
  .extend('quirks', async ({}, { onCleanup }): Promise<QuirksServer> => {
    const server = await startQuirksServer();
    onCleanup(() => server.close());
    return server;
  })
  // Lifetime: the test. An upstream client pointed at `quirks`, recording its call events and log lines;
  // closed after the test, before the server.
  .extend('quirksClient', async ({ quirks }, { onCleanup }): Promise<Captured> => {
    const captured = captureClient({ baseUrl: quirks.baseUrl });
    onCleanup(() => captured.client.close());
    return captured;
  })
  // Lifetime: the test. Makes gateways of other settings than the file's, each over a sandbox of its own;
  // in process unless `listen` is set (then with `url`, for tests about a real socket). All are stopped, with
  // their sandboxes, after the test.
  .extend('gatewayWith', async ({}, { onCleanup }) => {
    const started: { close(): Promise<void> }[] = [];
    onCleanup(async () => {
      // Each gateway before the sandbox it was made over.
      for (const made of started.reverse()) await made.close();
    });
    async function gatewayWith(options?: GatewayOptions & { sandbox?: SandboxOptions; listen?: false }): Promise<InProcessGateway>;
    async function gatewayWith(options: GatewayOptions & { sandbox?: SandboxOptions; listen: true }): Promise<TestGateway>;
    async function gatewayWith(
      options: GatewayOptions & { sandbox?: SandboxOptions; listen?: boolean } = {},
    ): Promise<InProcessGateway | TestGateway> {
      if (options.listen) {
        const listening = await startTestGateway(options);
        started.push(listening);
        return listening;
      }
      const sandbox = await startTestSandbox(options.sandbox);
      started.push(sandbox);
      const gateway = createTestGateway(sandbox, options);
      started.push(gateway);
      return gateway;
    }
    return gatewayWith;
  });

/** What a file may set of its fixtures; each left out keeps its default. (A type, not an interface: override wants an index signature.) */
export type FileOptions = {
  sandboxOptions?: SandboxOptions;
  env?: Record<string, string>;
  keys?: Record<string, ApiKey>;
  logTo?: GatewayOptions['logTo'];
};

/**
 * A `test` of the file's own with these options. vitest copies the fixtures on extend, so overriding the copy
 * (which is what a top-level override does: it replaces the instance's fixtures) touches no other file's.
 */
export function testWith(options: FileOptions = {}): typeof shared {
  // extend({}) adds nothing; vitest types its result more loosely than the chain it copies.
  const own = shared.extend({}) as unknown as typeof shared;
  own.override(options);
  return own;
}

/** The fixtures with their defaults. Refuses override, which would change them for every later file of the worker. */
export const test: typeof shared = Object.assign(shared, {
  override(): never {
    throw new Error('test.override would change the shared fixtures for every later file of the worker: use testWith(options)');
  },
});

export const it = test;
