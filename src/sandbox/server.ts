// The HTTP side of the sandbox: find-my-way routing for the reward API under /papi/v1 and the control API under
// /__sandbox, bearer auth, the processing tick, request stats, injected faults and latency, and one place
// where every refusal becomes the error envelope. Nothing a client sends can crash the process.
import { timingSafeEqual } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import FindMyWay from 'find-my-way';
import { routeKey, type Answer, type Route, type SandboxContext } from './context.js';
import { errorEnvelope, htmlErrorPage, malformed, SandboxError, tooManyRequests, unauthorized } from './errors.js';
import type { FaultOutcome } from './faults.js';
import { tick } from './processing.js';

export const API_PREFIX = '/papi/v1';
const CONTROL_PREFIX = '/__sandbox';
/** Large enough for 1,000 contacts or a long id; anything bigger is refused with 413. */
const MAX_BODY_BYTES = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

interface Matched {
  route: Route;
  params: Record<string, string>;
}

class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 16_384 });

  constructor(prefix: string, routes: readonly Route[]) {
    for (const route of routes) this.router.on(route.method, prefix + route.path, () => undefined, route);
  }

  match(method: string, path: string): Matched | null {
    const found = this.router.find(method as FindMyWay.HTTPMethod, path);
    if (!found) return null;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(found.params)) if (v !== undefined) params[k] = v;
    return { route: found.store as Route, params };
  }

  allowed(path: string): string[] {
    return METHODS.filter((m) => this.router.find(m, path) !== null);
  }
}

interface Body {
  text: string;
  tooLarge: boolean;
}

function readBody(req: http.IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    const done = () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge });
    req.on('end', done);
    req.on('error', done);
    req.on('aborted', done);
  });
}

function parseJson(body: Body): unknown {
  if (body.tooLarge) throw new SandboxError(413, 'ERROR_PAYLOAD_TOO_LARGE', 'Payload too large', 'The body exceeds 1 MiB.');
  if (body.text.trim() === '') return undefined;
  try {
    return JSON.parse(body.text) as unknown;
  } catch {
    throw malformed('The request body is not valid JSON.');
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  // Exactly "Bearer <token>" with one space, as the specification words it.
  if (!header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function send(res: http.ServerResponse, answer: Answer): void {
  if (res.destroyed || res.writableEnded) return;
  const text = answer.raw ?? JSON.stringify(answer.body ?? {});
  res.writeHead(answer.status ?? 200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}

function sendError(res: http.ServerResponse, err: SandboxError): void {
  send(res, { status: err.status, body: errorEnvelope(err), ...(err.headers ? { headers: err.headers } : {}) });
}

/** Runs a handler; a SandboxError is an answer, anything else is a sandbox bug reported as a JSON 500. */
function run(fn: () => Answer): Answer {
  try {
    return fn();
  } catch (err) {
    const e = asSandboxError(err);
    return { status: e.status, body: errorEnvelope(e), ...(e.headers ? { headers: e.headers } : {}) };
  }
}

function asSandboxError(err: unknown): SandboxError {
  if (err instanceof SandboxError) return err;
  console.error('sandbox: handler failed', err);
  return new SandboxError(500, 'ERROR_INTERNAL', 'Internal error', 'The sandbox failed to handle this request.');
}

/**
 * A 200 whose body stops halfway: the answer of a processed request (`after`), or of one never processed (an
 * answer a proxy mangled). Either way the client cannot tell from it whether anything happened.
 */
function sendGarbled(res: http.ServerResponse, answer: Answer | null): void {
  if (res.destroyed || res.writableEnded) return;
  const whole = answer ? (answer.raw ?? JSON.stringify(answer.body ?? {})) : '{"info":{"code":"INFO_OK"},"status":200}';
  const text = whole.slice(0, Math.max(1, Math.floor(whole.length / 2)));
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendFault(req: http.IncomingMessage, res: http.ServerResponse, failure: NonNullable<FaultOutcome['failure']>, answer: Answer | null): void {
  if ('garble' in failure) {
    sendGarbled(res, answer);
    return;
  }
  if ('reset' in failure) {
    req.socket.destroy();
    return;
  }
  if (failure.status === 429) {
    sendError(res, tooManyRequests());
    return;
  }
  if (res.destroyed || res.writableEnded) return;
  const html = htmlErrorPage(failure.status);
  res.writeHead(failure.status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function splitUrl(url: string): { path: string; search: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, search: '' } : { path: url.slice(0, q), search: url.slice(q + 1) };
}

const originOf = (req: http.IncomingMessage) => `http://${req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`}`;

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

export interface SandboxServer {
  server: http.Server;
  close(): Promise<void>;
}

export function createSandboxServer(ctx: SandboxContext, apiRoutes: readonly Route[], controlRoutes: readonly Route[]): SandboxServer {
  const api = new RouteTable(API_PREFIX, apiRoutes);
  const control = new RouteTable(CONTROL_PREFIX, controlRoutes);
  const closing = new AbortController();
  // Each request held by a latency (SANDBOX_LATENCY_MS, a latency fault) listens on `closing` until its pause
  // ends, so there are as many listeners as requests held at once: tests hold hundreds (Node warns past 10).
  // test/sandbox/latency-listeners.test.ts checks none is left once they are answered.
  setMaxListeners(1_000, closing.signal);
  const sockets = new Set<Socket>();

  const pause = async (ms: number) => {
    if (ms > 0) await sleep(ms, undefined, { signal: closing.signal });
  };

  async function serveApi(req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string): Promise<void> {
    const leave = ctx.stats.enter();
    ctx.stats.countArrival();
    res.once('close', leave);
    const body = await readBody(req);
    tick(ctx.state);
    const method = req.method ?? 'GET';
    const matched = api.match(method, path);
    const key = matched ? routeKey(matched.route) : null;
    // Counted before faults apply, so a test sees every attempt the client made.
    if (key) ctx.stats.countRequest(key);
    // Echoed on every answer, faults and errors included, as services that log by request id do.
    const requestId = req.headers['x-request-id'];
    if (typeof requestId === 'string' && requestId !== '') {
      ctx.stats.countRequestId(requestId);
      res.setHeader('x-request-id', requestId);
    }
    // Over the capacity fault's rate: refused before any work, counted as throttled in stats.
    if (!ctx.capacity.admit()) {
      ctx.stats.countThrottled();
      return sendError(res, tooManyRequests());
    }
    const before = key ? ctx.faults.decide(key, 'before') : null;
    await pause(ctx.settings.latencyMs + (before?.latencyMs ?? 0));
    if (before?.failure) return sendFault(req, res, before.failure, null);
    if (String(req.headers['simulate-ratelimit']).toLowerCase() === 'true') return sendError(res, tooManyRequests());
    if (!tokenMatches(req.headers.authorization, ctx.settings.token)) return sendError(res, unauthorized());
    if (!matched || !key) return sendError(res, unmatched(api, method, path));
    const answer = run(() =>
      matched.route.handler({ ctx, params: matched.params, search, body: method === 'GET' ? undefined : parseJson(body), origin: originOf(req) }),
    );
    // `after` faults strike once the handler has done its work: the order exists, the client sees a failure.
    const after = ctx.faults.decide(key, 'after');
    await pause(after.latencyMs);
    if (after.failure) return sendFault(req, res, after.failure, answer);
    send(res, answer);
  }

  async function serveControl(req: http.IncomingMessage, res: http.ServerResponse, path: string, search: string): Promise<void> {
    const body = await readBody(req);
    tick(ctx.state);
    const method = req.method ?? 'GET';
    const matched = control.match(method, path);
    if (!matched) return sendError(res, unmatched(control, method, path));
    send(
      res,
      run(() => matched.route.handler({ ctx, params: matched.params, search, body: parseJson(body), origin: originOf(req) })),
    );
  }

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { path, search } = splitUrl(req.url ?? '/');
    if (under(path, API_PREFIX)) return serveApi(req, res, path, search);
    if (under(path, CONTROL_PREFIX)) return serveControl(req, res, path, search);
    await readBody(req);
    tick(ctx.state);
    sendError(res, new SandboxError(404, 'ERROR_NOT_FOUND', 'Not found', `Nothing is served at ${path}; the API is under ${API_PREFIX}.`));
  }

  const server = http.createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (closing.signal.aborted) return;
      sendError(res, asSandboxError(err));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function unmatched(table: RouteTable, method: string, path: string): SandboxError {
  const allowed = table.allowed(path);
  if (allowed.length > 0) {
    return new SandboxError(
      405,
      'ERROR_METHOD_NOT_ALLOWED',
      'Method not allowed',
      `${method} is not allowed here; use ${allowed.join(' or ')}.`,
      {},
      { allow: allowed.join(', ') },
    );
  }
  return new SandboxError(404, 'ERROR_NOT_FOUND', 'Not found', `No route ${method} ${path}.`);
}
