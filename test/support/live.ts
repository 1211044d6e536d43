import { TEST_ENV } from './gateway.js';
import type { AddressInfo } from 'node:net';
import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';
import { loadConfig, type Config } from '../../src/config.js';
import type { LiveListener, LiveLogger, PollErrorReport } from '../../src/live/listener.js';
import { createLogger, logLevel, type LogDestination } from '../../src/ops/logger.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { createGateway, type Gateway } from '../../src/app.js';
import type { ResolveAll } from '../../src/webhooks/egress.js';
import { upstreamClientFromConfig } from '../../src/upstream/from-config.js';
import type { UpstreamClient } from '../../src/upstream/types.js';
import { startTestSandbox, type SandboxStats, type TestSandbox } from './sandbox.js';

// Subscription tests: a real gateway with a short poll interval in front of a real sandbox, clients for both
// transports (graphql-ws and SSE), and a watch on the live hub's hooks so tests wait on polls, not on time.

/** Fast polls and fast upstream retries, so a suite takes a few seconds. */
const LIVE_ENV = {
  ...TEST_ENV,
  POLL_INTERVAL_MS: '50',
  POLL_INTERVAL_FLOOR_MS: '10',
};

export interface LogLine {
  level: 'warn' | 'info';
  msg: string;
  obj: object;
}

/** Counts the hub's poll hooks per key, and resolves waits on them. */
export class PollWatch implements LiveListener {
  private readonly started = new Map<string, number>();
  private readonly finished = new Map<string, number>();
  readonly failures: PollErrorReport[] = [];
  private readonly delivered = new Map<string, number[]>();
  readonly stoppedKeys: string[] = [];
  private waits: { ready: () => boolean; resolve: () => void }[] = [];

  onPollStart(key: string): void {
    this.started.set(key, this.startedCount(key) + 1);
    this.check();
  }

  onPoll({ key, events }: { key: string; events: number }): void {
    this.finished.set(key, this.completed(key) + 1);
    // Polls of one key never overlap, so the one ending now is the one started last.
    for (let i = 0; i < events; i++) this.deliveries(key).push(this.startedCount(key));
    this.check();
  }

  onPollError(report: PollErrorReport): void {
    this.finished.set(report.key, this.completed(report.key) + 1);
    this.failures.push(report);
    this.check();
  }

  onPollerStop(key: string): void {
    this.stoppedKeys.push(key);
    // A stopped poller has nothing in flight any more.
    this.finished.set(key, this.startedCount(key));
    this.check();
  }

  startedCount(key: string): number {
    return this.started.get(key) ?? 0;
  }

  /** Polls that ended, successful or not. */
  completed(key: string): number {
    return this.finished.get(key) ?? 0;
  }

  /** For each event delivered on the key, the number of the poll (1 = baseline) that delivered it. */
  deliveries(key: string): number[] {
    const list = this.delivered.get(key) ?? [];
    this.delivered.set(key, list);
    return list;
  }

  inFlight(key: string): boolean {
    return this.startedCount(key) > this.completed(key);
  }

  /** Resolves once `ready()` holds, re-checked after every hook. */
  until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.waits.push({ ready, resolve }));
  }

  /** Resolves once `count` more polls of the key have ended. */
  polls(key: string, count: number): Promise<void> {
    const target = this.completed(key) + count;
    return this.until(() => this.completed(key) >= target);
  }

  private check(): void {
    const waiting = this.waits;
    this.waits = [];
    for (const wait of waiting) {
      if (wait.ready()) wait.resolve();
      else this.waits.push(wait);
    }
  }
}

export interface LiveGateway {
  url: string;
  sandbox: TestSandbox;
  client: UpstreamClient;
  gateway: Gateway;
  watch: PollWatch;
  logs: LogLine[];
  /** Sandbox stats at a moment when no poll of `key` is in flight, with how many of its polls had ended then. */
  quietStats(key: string): Promise<{ stats: SandboxStats; polls: number }>;
  /**
   * Stops the gateway (WebSockets closed with 1001, SSE streams dropped), runs `whileDown`, and starts a new
   * one on the same port.
   */
  restart(whileDown?: () => Promise<unknown>): Promise<void>;
  /** Resolves when the gateway has been restarted (after `restart` was called). */
  restarted: Promise<void>;
  close(): Promise<void>;
}

export async function startLiveGateway(
  options: {
    sandbox?: SandboxOptions;
    env?: Record<string, string>;
    /** The gateway's log lines (LOG_LEVEL in env). */ logTo?: LogDestination;
    /** The resolver of webhook URLs' names. */ webhookLookup?: ResolveAll;
  } = {},
): Promise<LiveGateway> {
  const sandbox = await startTestSandbox(options.sandbox);
  const config: Config = loadConfig({ ...LIVE_ENV, ...options.env });
  const client = upstreamClientFromConfig(config, { baseUrl: sandbox.sandbox.baseUrl, token: sandbox.sandbox.token });
  const logs: LogLine[] = [];
  const liveLogger: LiveLogger = {
    warn: (obj, msg = '') => logs.push({ level: 'warn', msg, obj }),
    info: (obj, msg = '') => logs.push({ level: 'info', msg, obj }),
  };
  const watch = new PollWatch();
  let markRestarted: () => void = () => undefined;
  const restarted = new Promise<void>((resolve) => (markRestarted = resolve));

  const launch = async (port: number) => {
    const gateway = createGateway({
      config,
      client,
      liveLogger,
      ...(options.logTo && { logger: createLogger({ level: logLevel(config), destination: options.logTo }) }),
      ...(options.webhookLookup && { webhookLookup: options.webhookLookup }),
    });
    gateway.live.listen(watch);
    const url = await gateway.start(port);
    return { gateway, url };
  };
  let { gateway, url } = await launch(0);

  const live: LiveGateway = {
    url,
    sandbox,
    client,
    gateway,
    watch,
    logs,
    restarted,
    async quietStats(key) {
      for (;;) {
        await watch.until(() => !watch.inFlight(key));
        const started = watch.startedCount(key);
        const polls = watch.completed(key);
        const stats = await sandbox.control.stats();
        if (watch.startedCount(key) === started) return { stats, polls };
      }
    },
    async restart(whileDown) {
      const { port } = gateway.server.address() as AddressInfo;
      await gateway.stop(1_000);
      await whileDown?.();
      ({ gateway, url } = await launch(port));
      live.gateway = gateway;
      markRestarted();
    },
    async close() {
      await gateway.stop(1_000);
      await client.close();
      await sandbox.close();
    },
  };
  return live;
}

/** Requests per route between two stats snapshots. */
export function requestDelta(before: SandboxStats, after: SandboxStats): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [route, n] of Object.entries(after.requests)) {
    const d = n - (before.requests[route] ?? 0);
    if (d) delta[route] = d;
  }
  return delta;
}

/** How a stream of subscription results ended. */
export type StreamEnd = 'complete' | 'error' | 'dropped';

/** Results of one subscription as they arrive; tests await them as promises. */
export class ResultStream<T = any> {
  readonly received: T[] = [];
  private taken = 0;
  private waiters: { resolve(value: T): void; reject(error: Error): void }[] = [];
  private endedAs: StreamEnd | null = null;
  private markEnded: (end: StreamEnd) => void = () => undefined;
  /** Resolves with how the stream ended. */
  readonly ended = new Promise<StreamEnd>((resolve) => (this.markEnded = resolve));
  error: unknown = null;
  onClose: () => void = () => undefined;

  push(result: T): void {
    this.received.push(result);
    const waiter = this.waiters.shift();
    if (waiter) {
      this.taken += 1;
      waiter.resolve(result);
    }
  }

  end(how: StreamEnd, error?: unknown): void {
    if (this.endedAs) return;
    this.endedAs = how;
    this.error = error ?? null;
    this.markEnded(how);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error(`stream ended (${how}) before the next result`));
  }

  /** The next result not yet taken. */
  next(): Promise<T> {
    if (this.taken < this.received.length) return Promise.resolve(this.received[this.taken++]!);
    if (this.endedAs) return Promise.reject(new Error(`stream ended (${this.endedAs})`));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The next `count` results. */
  async take(count: number): Promise<T[]> {
    const results: T[] = [];
    for (let i = 0; i < count; i++) results.push(await this.next());
    return results;
  }

  close(): void {
    this.onClose();
  }
}

export function wsClient(url: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    ...options,
  });
}

export function subscribeWs<T = any>(
  client: Client,
  query: string,
  variables?: Record<string, unknown>,
  /** More payload fields, e.g. a trusted-documents `documentId`. */
  extra: Record<string, unknown> = {},
): ResultStream<T> {
  const stream = new ResultStream<T>();
  stream.onClose = client.subscribe<T>(
    { query, variables, ...extra },
    {
      next: (result) => stream.push(result as T),
      error: (error) => stream.end('error', error),
      complete: () => stream.end('complete'),
    },
  );
  return stream;
}

/** A GraphQL subscription over SSE (yoga's `accept: text/event-stream`), read with fetch. */
export function subscribeSse<T = any>(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): ResultStream<T> {
  const stream = new ResultStream<T>();
  const controller = new AbortController();
  stream.onClose = () => controller.abort();
  const read = async () => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query, variables }),
      signal: controller.signal,
    });
    if (!res.ok || !res.body) throw new Error(`SSE request answered ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = res.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const event = lines
          .find((l) => l.startsWith('event:'))
          ?.slice('event:'.length)
          .trim();
        const data = lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice('data:'.length).trimStart())
          .join('\n');
        if (event === 'complete') return stream.end('complete');
        if (data) stream.push(JSON.parse(data) as T);
      }
    }
    stream.end('dropped');
  };
  read().catch((error: unknown) => stream.end(controller.signal.aborted ? 'complete' : 'dropped', error));
  return stream;
}

/** Resolves when the server has accepted a WebSocket connection for the client (connection_ack). */
export function connected(client: Client): Promise<void> {
  return new Promise((resolve) => {
    const off = client.on('connected', () => {
      off();
      resolve();
    });
  });
}

/** Reward changes of one order (or the account), resumable: each event's cursor, and `after` to resume from. */
/** One order's reward status changes, as a webhook endpoint or a plain subscriber takes them. */
export const GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID) {
    giftStatusChanged(campaign: $campaign) {
      gift {
        uuid
        status
      }
    }
  }
`;

export const RESUMABLE_GIFT_CHANGES = /* GraphQL */ `
  subscription ($campaign: ID, $after: String) {
    giftStatusChanged(campaign: $campaign, after: $after) {
      gift {
        uuid
        status
      }
      cursor
    }
  }
`;
