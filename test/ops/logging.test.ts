import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/ops/logger.js';
import { createRedactor } from '../../src/redaction/redaction.js';
import { createGateway } from '../../src/app.js';
import { upstreamClientFromConfig } from '../../src/upstream/from-config.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import type { InProcessGateway } from '../support/gateway.js';
import { testWith } from '../support/test.js';

// Log lines as an operator gets them: JSON, one per line, with the request id of the operation on each of
// them, and never a credential, whatever fails.

interface LogLine {
  level: string;
  msg: string;
  requestId?: string;
  [field: string]: unknown;
}

function collector() {
  const raw: string[] = [];
  return {
    raw,
    logTo: { write: (line: string) => void raw.push(line) },
    lines: () => raw.map((line) => JSON.parse(line) as LogLine),
    clear: () => void raw.splice(0),
  };
}

const API_KEY = `gwk_live_${randomBytes(12).toString('hex')}`;
const WRONG_KEY = `gwk_live_${randomBytes(12).toString('hex')}`;
const KEYS = JSON.stringify([{ name: 'ops-test', key: API_KEY, scopes: ['rewards:read', 'funds:read'] }]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// The file's gateway (the request-id tests') logs at debug level into `gatewayLogs`.
const gatewayLogs = collector();
const it = testWith({ env: { LOG_LEVEL: 'debug' }, logTo: gatewayLogs.logTo });

describe('log redaction', () => {
  it('never writes the upstream token or a client key, through auth failures, 5xx, resets and 429s', async ({ gatewayWith }) => {
    const wrongToken = `wrong-${randomBytes(16).toString('hex')}`;
    const logs = collector();
    const env = { LOG_LEVEL: 'trace', GATEWAY_API_KEYS: KEYS };
    const wrong = await gatewayWith({ token: wrongToken, env, logTo: logs.logTo });
    const right = await gatewayWith({ env: { ...env, UPSTREAM_RETRY_ATTEMPTS: '2' }, logTo: logs.logTo });
    const asClient = { authorization: `Bearer ${API_KEY}`, 'x-api-key': API_KEY };
    const denied = await wrong.gql('{ viewer { username } }', {}, asClient);
    expect(denied.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAUTHORIZED');

    await right.sandbox.control.fault({ route: 'GET /funds', status: 503, rate: 1 });
    await right.sandbox.control.fault({ route: 'GET /regions', reset: true, rate: 1 });
    await right.sandbox.control.fault({ route: 'GET /ping', status: 429, rate: 1 });
    const failed = await right.gql('{ viewer { username } funds { balances { currency } } regions { id } }', {}, asClient);
    expect(failed.body.errors?.map((e) => e.extensions?.code).sort()).toEqual(['RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE']);

    const unknownKey = await right.gql('{ viewer { username } }', {}, { authorization: `Bearer ${WRONG_KEY}` });
    expect(unknownKey.status).toBe(401);

    const output = logs.raw.join('');
    // The failures were logged in detail (so there was something to leak) ...
    // (After the 429 the adaptive limit slows the retries down: one it cannot fit in the call's budget is not sent.)
    expect(logs.lines().filter((l) => l.msg === 'upstream attempt failed').length).toBeGreaterThanOrEqual(6);
    expect(logs.lines().filter((l) => l.msg === 'operation completed')).toHaveLength(2);
    // ... and none of the secrets made it out.
    for (const secret of [wrongToken, wrong.sandbox.sandbox.token, right.sandbox.sandbox.token, API_KEY, WRONG_KEY]) {
      expect(output).not.toContain(secret);
    }
    // Expected failures are not errors of the gateway.
    expect(logs.lines().filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
  });

  it('blanks credential fields and scrubs a secret string from messages and stacks', () => {
    const logs = collector();
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const log = createLogger({ level: 'info', redactor: createRedactor([token]), destination: logs.logTo });
    log.info({ headers: { authorization: `Bearer ${API_KEY}`, cookie: 'session=abc' }, token, config: { apiKey: API_KEY } }, `calling with ${token}`);
    log.error({ err: new Error(`upstream said no to ${token} and Bearer ${API_KEY}`) }, 'failed');

    const output = logs.raw.join('');
    expect(output).not.toContain(token);
    expect(output).not.toContain(API_KEY);
    expect(output).not.toContain('session=abc');
    const [first, second] = logs.lines();
    expect(first).toMatchObject({
      level: 'info',
      service: 'reward-gateway',
      msg: 'calling with [redacted]',
      token: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      config: { apiKey: '[redacted]' },
    });
    expect(second).toMatchObject({ level: 'error', err: { message: 'upstream said no to [redacted] and Bearer [redacted]' } });
    expect((second!.err as { stack: string }).stack).toContain('logging.test.ts');
  });
});

describe('request ids', () => {
  async function run(gw: InProcessGateway, headers: Record<string, string>) {
    gatewayLogs.clear();
    const res = await gw.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: 'query Both { viewer { username } funds { balances { currency } } }' }),
    });
    expect((await res.json()).errors).toBeUndefined();
    return { requestId: res.headers.get('x-request-id'), lines: gatewayLogs.lines() };
  }

  it('keeps a well-formed incoming x-request-id, echoes it and writes it on every line of the operation', async ({ gateway: gw }) => {
    const { requestId, lines } = await run(gw, { 'x-request-id': 'checkout-7f3a.retry-2' });
    expect(requestId).toBe('checkout-7f3a.retry-2');
    // The upstream client's lines (it has no GraphQL context) carry the id as well as the operation's own line.
    expect(lines.map((l) => l.msg).sort()).toEqual(['operation completed', 'upstream attempt', 'upstream attempt']);
    expect(lines.every((l) => l.requestId === 'checkout-7f3a.retry-2')).toBe(true);
    expect(lines.find((l) => l.msg === 'operation completed')).toMatchObject({
      operationName: 'Both',
      operationType: 'query',
      outcome: 'ok',
      durationMs: expect.any(Number),
    });
  });

  it("sends the operation's id upstream as x-request-id on every call it makes, so upstream logs join ours", async ({ gateway: gw }) => {
    await gw.sandbox.control.reset();
    // The first ping fails once and is retried: the retry carries the same id.
    await gw.sandbox.control.fault({ route: 'GET /ping', status: 503, rate: 1, count: 1 });
    await run(gw, { 'x-request-id': 'join-me-1' });
    const fresh = await run(gw, {});
    const { requestIds } = await gw.sandbox.control.stats();
    // One GET /ping (two attempts the first time) and one GET /funds per operation, each with its operation's id.
    expect(requestIds).toEqual({ 'join-me-1': 3, [fresh.requestId!]: 2 });
  });

  it('sends it on the read the shared catalog cache makes for the operation that missed it', async ({ gateway: gw }) => {
    await gw.sandbox.control.reset();
    const res = await gw.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'catalog-miss-1' },
      body: JSON.stringify({ query: '{ regions { id } }' }),
    });
    expect((await res.json()).errors).toBeUndefined();
    const { requests, requestIds } = await gw.sandbox.control.stats();
    expect(requests).toEqual({ 'GET /regions': 1 });
    expect(requestIds).toEqual({ 'catalog-miss-1': 1 });
  });

  it('replaces a malformed or missing id with a fresh UUID per operation', async ({ gateway: gw }) => {
    const malformed = await run(gw, { 'x-request-id': 'no spaces allowed' });
    const missing = await run(gw, {});
    for (const { requestId, lines } of [malformed, missing]) {
      expect(requestId).toMatch(UUID);
      expect(lines.length).toBeGreaterThanOrEqual(3);
      expect(lines.every((l) => l.requestId === requestId)).toBe(true);
    }
    expect(malformed.requestId).not.toBe(missing.requestId);
  });

  it('logs a refused document once, with its reasons and the request id', async ({ gateway: gw }) => {
    gatewayLogs.clear();
    const res = await gw.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'refused-1' },
      body: JSON.stringify({ query: 'query Typo { viewr { username } }' }),
    });
    expect(res.headers.get('x-request-id')).toBe('refused-1');
    expect(gatewayLogs.lines()).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'operation refused',
        requestId: 'refused-1',
        operationName: 'Typo',
        reasons: [expect.stringContaining('viewr')],
      }),
    ]);
  });
});

describe('unexpected errors', () => {
  it('are masked for the client and logged at error level with the stack and the request id', async ({ sandbox }) => {
    const logs = collector();
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' });
    const { token } = sandbox.sandbox;
    const redactor = createRedactor([token]);
    const logger = createLogger({ level: 'info', redactor, destination: logs.logTo });
    const real = upstreamClientFromConfig(config, { baseUrl: sandbox.sandbox.baseUrl, token }, { logger });
    // Nothing the sandbox can do makes our own code throw, so one client method is replaced by a bug, in every
    // scoped view of the client too.
    const bug = async () => Promise.reject(new TypeError(`cannot read balances (token ${token})`));
    const withBug = (c: UpstreamClient): UpstreamClient =>
      new Proxy(c, {
        get(target, name) {
          if (name === 'getFunds') return bug;
          if (name === 'inScope') return (fields: Parameters<UpstreamClient['inScope']>[0]) => withBug(target.inScope(fields));
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const client = withBug(real);
    const gateway = createGateway({ config, client, logger, redactor });
    try {
      const res = await gateway.yoga.fetch('http://gateway/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'bug-1' },
        body: JSON.stringify({ query: '{ viewer { username } funds { balances { currency } } }' }),
      });
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({
        data: { viewer: { username: expect.any(String) }, funds: null },
        errors: [{ message: 'Unexpected error.', path: ['funds'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      });
      expect(text).not.toContain('cannot read balances');

      const errors = logs.lines().filter((l) => l.level === 'error');
      expect(errors).toEqual([
        expect.objectContaining({
          msg: 'unexpected error (masked for the client)',
          requestId: 'bug-1',
          path: 'funds',
          err: expect.objectContaining({
            type: 'TypeError',
            message: 'cannot read balances (token [redacted])',
            stack: expect.stringContaining('TypeError'),
          }),
        }),
      ]);
      expect(logs.raw.join('')).not.toContain(token);
    } finally {
      await gateway.stop(1_000);
      await real.close();
    }
  });
});
