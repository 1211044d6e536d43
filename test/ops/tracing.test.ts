import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createRedactor } from '../../src/redaction/redaction.js';
import { createEmailOrder } from '../support/fixtures.js';
import { startOtlpReceiver, type ExportedSpan, type OtlpReceiver } from '../support/otlp.js';
import { subscribeSse } from '../support/live.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.js';
import { gatewayCommand } from '../support/gateway-process.js';

// Tracing end to end, as an operator wires it: a gateway process exporting over OTLP/HTTP (protobuf, then
// JSON) to a receiver this test runs, one nested read (campaign → gifts → brand) sent with a caller's
// `traceparent`. The upstream is the sandbox behind a recording proxy, which keeps the headers of every
// request the gateway sent. Checked on what was exported: one trace continuing the caller's span, the
// operation span, one client span per upstream request (as many as the sandbox counted) with method, status
// and URL template, a `traceparent` on every upstream request naming its client span, the log lines carrying
// the trace id, and neither the upstream token nor the client's key in any encoding in any exported byte.

const root = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = `gwk_live_${randomBytes(12).toString('hex')}`;
const KEYS = JSON.stringify([{ name: 'tracing-test', key: API_KEY, scopes: ['rewards:read', 'funds:read'] }]);
const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;

interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** Forwards to `origin`, keeping the headers of each request. */
async function recordingProxy(origin: string) {
  const recorded: Recorded[] = [];
  const target = new URL(origin);
  const server = createServer((req, res) => {
    recorded.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    const out = forward({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    recorded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function startGateway(env: Record<string, string>) {
  const [command, args] = gatewayCommand();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', CACHE_TTL_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const listening = new Promise<string>((resolve, reject) => {
    const look = () => {
      const line = lines().find((l) => l.msg === 'gateway listening');
      if (line) resolve(String(line.url));
    };
    child.stdout.on('data', look);
    void exited.then(() => reject(new Error(`gateway exited before listening:\n${stdout}\n${stderr}`)));
  });
  return { child, exited, lines, listening, stderr: () => stderr };
}

async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const NESTED = `query NestedRead($ref: ID!) { campaign(ref: $ref) { uuid gifts(first: 10) { edges { node { uuid brand { name } } } } } }`;

let sandbox: TestSandbox;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let ref: string;

/** The nested read without credentials or a traceparent, as the cases that are not about them send it. */
async function nestedReadErrors(url: string): Promise<unknown> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: NESTED, variables: { ref } }),
  });
  return ((await res.json()) as { errors?: unknown }).errors;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const order = await createEmailOrder(sandbox, { recipients: 2, brandCodes: ['sbxcoffeeus'], priceInCents: 1000 });
  await sandbox.control.advanceClock(1000);
  ref = order.id;
  proxy = await recordingProxy(sandbox.sandbox.origin);
});

afterAll(async () => {
  await proxy?.close();
  await sandbox?.close();
});

describe.each(['http/protobuf', 'http/json'])('tracing over OTLP %s', (protocol) => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('exports one connected trace of a nested read, with no secret in any byte', async () => {
    const upstreamUrl = sandbox.sandbox.baseUrl.replace(sandbox.sandbox.origin, proxy.origin);
    const gateway = startGateway({
      REWARD_API_URL: upstreamUrl,
      REWARD_API_TOKEN: sandbox.sandbox.token,
      GATEWAY_API_KEYS: KEYS,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const url = await gateway.listening;
      const callerTrace = randomBytes(16).toString('hex');
      const callerSpan = randomBytes(8).toString('hex');
      const total = async () => Object.values((await sandbox.control.stats()).requests).reduce((a, b) => a + b, 0);
      const before = await total();
      proxy.recorded.length = 0;

      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${API_KEY}`,
          traceparent: `00-${callerTrace}-${callerSpan}-01`,
        },
        body: JSON.stringify({ query: NESTED, variables: { ref }, operationName: 'NestedRead' }),
      });
      const body = (await res.json()) as any;
      expect(body.errors).toBeUndefined();
      expect(body.data.campaign.gifts.edges).toHaveLength(2);

      const upstreamRequests = (await total()) - before;
      expect(upstreamRequests).toBeGreaterThanOrEqual(3);
      expect(proxy.recorded).toHaveLength(upstreamRequests);

      // The operation span ends after its client spans, and the server span after the response: once both are
      // exported, every span of the trace is.
      const ofTrace = () => receiver.spans().filter((s) => s.traceId === callerTrace);
      await eventually('the operation and server spans', () =>
        ofTrace().some((s) => s.name === 'query NestedRead') && ofTrace().some((s) => s.kind === SERVER) ? true : undefined,
      );
      const spans = ofTrace();

      const server = spans.filter((s) => s.kind === SERVER);
      expect(server).toHaveLength(1);
      expect(server[0]!.parentSpanId).toBe(callerSpan);
      expect(server[0]!.attributes['http.request.method']).toBe('POST');
      expect(server[0]!.resource['service.name']).toBe('reward-gateway');

      const operation = spans.find((s) => s.name === 'query NestedRead')!;
      expect(operation.parentSpanId).toBe(server[0]!.spanId);
      expect(operation.attributes).toMatchObject({ 'graphql.operation.name': 'NestedRead', 'graphql.operation.type': 'query' });
      expect(operation.attributes['graphql.document.hash']).toMatch(/^sha256:[0-9a-f]{64}$/);

      const ids = new Map(spans.map((s) => [s.spanId, s]));
      const descendsFrom = (span: ExportedSpan, ancestor: ExportedSpan): boolean => {
        for (let at = ids.get(span.parentSpanId); at; at = ids.get(at.parentSpanId)) if (at === ancestor) return true;
        return false;
      };
      // A loader batch is a span only when it holds several keys (test/graph/loader-spans.test.ts).
      expect(spans.filter((s) => s.name.startsWith('loader ')).every((s) => Number(s.attributes['reward.loader.batch_size']) > 1)).toBe(true);

      const clients = spans.filter((s) => s.kind === CLIENT);
      expect(clients).toHaveLength(upstreamRequests);
      for (const client of clients) {
        expect(descendsFrom(client, operation)).toBe(true);
        expect(client.attributes['http.request.method']).toBe('GET');
        expect(client.attributes['http.response.status_code']).toBe(200);
        expect(client.attributes['url.template']).toMatch(/^\/[a-z_]+(\/\{[a-z]+\})?$/);
        // A first attempt has no resend count (the semantic conventions set it on retries only).
        expect(client.attributes['http.request.resend_count']).toBeUndefined();
        expect(client.name).toBe(`GET ${String(client.attributes['url.template'])}`);
      }
      expect(clients.map((c) => c.attributes['url.template']).sort()).toEqual(expect.arrayContaining(['/brands/{code}', '/campaign/{id}', '/gifts']));

      // Every upstream request carried a traceparent naming its own client span in the caller's trace.
      const sent = proxy.recorded.map((r) => String(r.headers.traceparent ?? ''));
      expect(sent.every((t) => t.startsWith(`00-${callerTrace}-`))).toBe(true);
      expect(new Set(sent.map((t) => t.split('-')[2]))).toEqual(new Set(clients.map((c) => c.spanId)));

      // The operation's log lines carry the trace id.
      const logged = gateway.lines().filter((l) => l.msg === 'operation completed');
      expect(logged).toHaveLength(1);
      expect(logged[0]!.trace_id).toBe(callerTrace);
      expect(logged[0]!.span_id).toMatch(/^[0-9a-f]{16}$/);

      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
      // Secrets in every form the gateway's redactor blanks (hex, base64 at each alignment, escapes, case).
      const secrets = createRedactor([sandbox.sandbox.token, API_KEY]);
      expect(receiver.bodies.length).toBeGreaterThan(0);
      for (const { bytes } of receiver.bodies) {
        expect(secrets.contains(bytes.toString('latin1'))).toBe(false);
        expect(secrets.contains(bytes.toString('utf8'))).toBe(false);
        expect(bytes.toString('latin1').toLowerCase()).not.toContain('authorization');
      }
      // Never the variables either: the order's id reaches the server and operation spans only as one.
      expect(JSON.stringify([server[0]!.attributes, operation.attributes])).not.toContain(ref);
    } finally {
      gateway.child.kill('SIGKILL');
    }
  });
});

describe('tracing off', () => {
  // NODE_DEBUG=module makes Node name each CommonJS module it loads on stderr: @opentelemetry/api shows (the
  // gateway's spans call it), nothing of the SDK, its exporters, instrumentations or loader hook does.
  it.each([
    ['no endpoint', {}],
    ['OTEL_SDK_DISABLED=true', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }],
  ])('with %s, loads nothing of the SDK', async (_case, env: Record<string, string>) => {
    const gateway = startGateway({ REWARD_API_URL: sandbox.sandbox.baseUrl, REWARD_API_TOKEN: sandbox.sandbox.token, NODE_DEBUG: 'module', ...env });
    try {
      const url = await gateway.listening;
      expect(await nestedReadErrors(url)).toBeUndefined();
      const loaded = gateway.stderr();
      expect(loaded).toContain('@opentelemetry/api');
      expect(loaded).not.toMatch(/@opentelemetry\/(sdk-|exporter-|instrumentation|otlp-)|in-the-middle/);
    } finally {
      gateway.child.kill('SIGKILL');
    }
  });
});

describe('collector away', () => {
  it('serves, and stops cleanly (exit 0) within the flush limit, saying the last spans were not sent', async () => {
    // A port nothing listens on: every export is refused, and the exporter would retry for 10 s.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const gateway = startGateway({
      REWARD_API_URL: sandbox.sandbox.baseUrl,
      REWARD_API_TOKEN: sandbox.sandbox.token,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`,
    });
    try {
      const url = await gateway.listening;
      expect(await nestedReadErrors(url)).toBeUndefined();
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
      expect(gateway.lines().map((l) => l.msg)).toContain('tracing: the last spans did not reach the collector in time');
    } finally {
      gateway.child.kill('SIGKILL');
    }
  });
});

/** A redis-server on a free port that asks for a password (its AUTH must not reach a span either). */
async function startRedisWithPassword(password: string) {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  return {
    url: `redis://:${password}@127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')))),
  };
}

/** One operation over graphql-ws (raw frames): the upgrade may carry headers, the subscribe its extensions. */
async function operateOverSocket(url: string, headers: Record<string, string>, extensions: Record<string, unknown>) {
  const socket = new WebSocket(url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws', { headers });
  const frames: { type: string; payload?: unknown }[] = [];
  const next = (type: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => (frames.some((f) => f.type === type) ? resolve() : undefined);
      socket.on('message', (data) => {
        frames.push(JSON.parse(String(data)) as { type: string });
        look();
      });
      socket.once('close', (code, reason) => reject(new Error(`closed ${code} ${String(reason)}`)));
    });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const acked = next('connection_ack');
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${API_KEY}` } }));
  await acked;
  const completed = next('complete');
  socket.send(
    JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'query Viewer { viewer { username } }', operationName: 'Viewer', extensions } }),
  );
  await completed;
  socket.close();
  return frames.find((f) => f.type === 'next')?.payload as { data?: unknown; errors?: unknown };
}

// One gateway for the two: in cluster mode, exporting spans, as the background work needs it. The WebSocket case
// needs only a gateway exporting spans, and each such start is ~3 s of CPU (the SDK's modules), most of what a
// case here costs. The WebSocket case comes first: the background one ends by stopping the gateway.
describe('in cluster mode', () => {
  let receiver: OtlpReceiver;
  const redisPassword = `redis-${randomBytes(12).toString('hex')}`;
  let redis: Awaited<ReturnType<typeof startRedisWithPassword>>;
  let gateway: ReturnType<typeof startGateway>;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    redis = await startRedisWithPassword(redisPassword);
    gateway = startGateway({
      REDIS_URL: redis.url,
      REWARD_API_URL: sandbox.sandbox.baseUrl,
      REWARD_API_TOKEN: sandbox.sandbox.token,
      GATEWAY_API_KEYS: KEYS,
      POLL_INTERVAL_MS: '100',
      POLL_INTERVAL_FLOOR_MS: '10',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
  });
  afterAll(async () => {
    gateway?.child.kill('SIGKILL');
    await receiver?.close();
    await redis?.stop();
  });

  describe('over WebSocket', () => {
    it("an operation continues the traceparent of its subscribe's extensions, else the upgrade request's", async () => {
      const url = await gateway.listening;
      const caller = () => ({ trace: randomBytes(16).toString('hex'), span: randomBytes(8).toString('hex') });
      const inPayload = caller();
      const onUpgrade = caller();
      const header = (c: { trace: string; span: string }) => `00-${c.trace}-${c.span}-01`;
      // The payload's wins over the upgrade's; a socket with only the upgrade's continues that one.
      expect((await operateOverSocket(url, { traceparent: header(caller()) }, { traceparent: header(inPayload) })).errors).toBeUndefined();
      expect((await operateOverSocket(url, { traceparent: header(onUpgrade) }, {})).errors).toBeUndefined();
      for (const c of [inPayload, onUpgrade]) {
        const operation = await eventually('the operation span', () =>
          receiver.spans().find((s) => s.traceId === c.trace && s.name === 'query Viewer'),
        );
        expect(operation.parentSpanId).toBe(c.span);
        // Its upstream call is in the same trace, below it.
        await eventually('the client span', () => receiver.spans().find((s) => s.traceId === c.trace && s.kind === CLIENT));
      }
    });
  });

  describe('background work', () => {
    it('traces each poll, its commit to Redis and each delivery as root spans linked to what caused them', async () => {
      const url = await gateway.listening;
      const order = await createEmailOrder(sandbox, { recipients: 2, brandCodes: ['sbxcoffeeus'], priceInCents: 1000 });
      await sandbox.control.advanceClock(1000);
      const gifts = (await sandbox.api('GET', `/gifts?campaign_uuid=${order.uuid}`)).body.gifts as { uuid: string }[];
      const callerTrace = randomBytes(16).toString('hex');
      const stream = subscribeSse(
        url,
        'subscription Rewards($campaign: ID) { giftStatusChanged(campaign: $campaign) { gift { uuid status } } }',
        { campaign: order.uuid },
        { authorization: `Bearer ${API_KEY}`, traceparent: `00-${callerTrace}-${randomBytes(8).toString('hex')}-01` },
      );
      try {
        // The first poll takes the baseline; a change after it is an event. The subscription is accepted with
        // the order's first view, which a loaded machine may finish after that poll: until then a redemption
        // is part of the view it starts from, not an event.
        await eventually('the baseline poll', () => (receiver.spans().some((s) => s.name === 'live.poll') ? true : undefined));
        await eventually('the subscription accepted', async () =>
          /^reward_gateway_live_subscribers 1$/m.test(await (await fetch(`${url}/metrics`)).text()) ? true : undefined,
        );
        await sandbox.control.redeem(gifts[0]!.uuid);
        const event = await stream.next();
        expect(event.data.giftStatusChanged.gift.uuid).toBe(gifts[0]!.uuid);
        const delivery = await eventually('the delivery span', () => receiver.spans().find((s) => s.name === 'live.deliver'));
        // The delivery ends inside the poll that found the event (it reads the log after committing): the poll
        // span, its parent in time though not in the trace, is exported after it.
        await eventually('the poll that found the event', () =>
          receiver.spans().some((s) => s.name === 'live.poll' && Number(s.attributes['reward.live.changes']) > 0) ? true : undefined,
        );

        const spans = receiver.spans();
        const subscription = spans.find((s) => s.name === 'subscription Rewards')!;
        expect(subscription.traceId).toBe(callerTrace);
        const polls = spans.filter((s) => s.name === 'live.poll');
        for (const poll of polls) {
          // Each poll is a trace of its own, linked to the subscription that started watching the key.
          expect(poll.kind).toBe(INTERNAL);
          expect(poll.parentSpanId).toBe('');
          expect(poll.traceId).not.toBe(callerTrace);
          expect(poll.links).toContainEqual({ traceId: callerTrace, spanId: subscription.spanId });
          expect(poll.attributes['reward.live.key']).toEqual(expect.any(String));
        }
        const found = polls.find((p) => Number(p.attributes['reward.live.changes']) > 0)!;
        expect(found.attributes['reward.live.lease_token']).toEqual(expect.anything());
        // Its upstream reads and its commit are its children.
        const children = spans.filter((s) => s.parentSpanId === found.spanId);
        expect(children.some((s) => s.kind === CLIENT && s.attributes['url.template'] === '/gifts')).toBe(true);
        const commit = children.find((s) => s.name === 'live.commit')!;
        expect(commit.attributes).toMatchObject({ 'reward.live.fenced': false, 'reward.live.events': 1 });
        // Redis commands are spans of the ioredis instrumentation, named by the command, without arguments.
        const redisCommands = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-ioredis');
        expect(redisCommands.some((s) => s.parentSpanId === commit.spanId)).toBe(true);
        for (const command of redisCommands) expect(command.attributes['db.query.text'] ?? command.name).toBe(command.name);
        // The delivery is a root span linked to the poll that found the event.
        expect(delivery.parentSpanId).toBe('');
        expect(delivery.links).toContainEqual({ traceId: found.traceId, spanId: found.spanId });
        expect(delivery.attributes).toMatchObject({ 'reward.live.kind': 'event', 'reward.live.subscribers': 1 });
      } finally {
        stream.close();
      }
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
      const secrets = createRedactor([sandbox.sandbox.token, API_KEY, redisPassword]);
      for (const { bytes } of receiver.bodies) expect(secrets.contains(bytes.toString('latin1'))).toBe(false);
    });
  });
});
