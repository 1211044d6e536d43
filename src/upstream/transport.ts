// One HTTP exchange with the upstream: the undici pool, the headers every request carries (and the operation's
// request id), the per-attempt deadline and the call's stop signals, reading the body, and turning "no answer"
// into the right error kind.
// Any answer that arrives (200 or not) is returned as is; deciding what a status means is the caller's job.
//
// Each exchange is an undici dispatch handler (undici's documented low-level API): it collects the body chunks
// itself and ends the request through the controller undici hands it. undici's request() would add, per
// attempt, an AbortController to combine the deadline with the stop signals, listeners on them, and a Readable
// body stream: with the linked AbortController per call they were about 15% of the CPU of a nested read.

import type { Dispatcher } from 'undici';
// Pool alone, by path: undici's index loads all of undici (fetch, WebSocket, caches, mocks: ~700 KB of source),
// and a process keeps every module it loaded; the pool is all the gateway uses (idle RSS 3 MB less, compiled).
import Pool from 'undici/lib/dispatcher/pool.js';
import type { Span } from '@opentelemetry/api';
import { endClientSpan, startClientSpan, traceHeaders, type UpstreamServer } from '../telemetry/spans.js';
import { withValuesRedacted } from '../telemetry/url-query.js';
import type { Redact } from '../redaction/redaction.js';
import type { ClientConfig } from './config.js';
import type { UpstreamError } from './errors.js';
import { abortedFailure, networkFailure, timeoutFailure } from './failures.js';
import { PERSONAL_PARAMETERS } from './query.js';
import { parseRetryAfter } from './retry.js';
import { stopped, watch, type Stoppable, type Stops, type Watching } from './stops.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface WireRequest {
  method: HttpMethod;
  /** Route pattern for errors and logs, e.g. "GET /campaign/:id". */
  route: string;
  /** Path below the base path, parameters already encoded, query included. */
  path: string;
}

export interface WireResponse {
  status: number;
  /** The parsed body, or undefined when it was empty or not JSON (HTML error pages, whatever the content type). */
  json: unknown;
  retryAfterSeconds: number | null;
}

export interface Transport {
  /**
   * `body`: serialised once by the caller, so every retry sends the very same bytes. `requestId`: the
   * operation's, sent as x-request-id. `attempt`: 1 for the first, for the client span. `done` is called once
   * undici is done with the request (answered, failed, or dropped unsent), which can be after the promise
   * settled: an attempt that ends while it waits for a connection is dropped only when the pool reaches it, and
   * until then it still holds its place.
   */
  send(
    req: WireRequest,
    body: string | undefined,
    timeoutMs: number,
    stops: Stops,
    requestId: string | undefined,
    attempt: number,
    done: () => void,
  ): Promise<WireResponse>;
  close(): Promise<void>;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * One attempt, from dispatch to the last body chunk. Whichever comes first settles it: the answer, an error
 * undici reports, the deadline, or a stop signal; what comes after is ignored, so a timeout and a stop stay
 * distinct whatever undici then reports for the request it was told to abort.
 */
class Exchange implements Dispatcher.DispatchHandler, Stoppable {
  readonly #route: string;
  readonly #timeoutMs: number;
  readonly #watching: Watching;
  readonly #resolve: (res: WireResponse) => void;
  readonly #reject: (error: UpstreamError) => void;
  readonly #done: () => void;
  readonly #span: Span | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #chunks: Buffer[] = [];
  #controller: Dispatcher.DispatchController | null = null;
  #settled = false;
  #status = 0;
  #retryAfter: string | string[] | undefined;

  constructor(
    route: string,
    timeoutMs: number,
    stops: Stops,
    resolve: (res: WireResponse) => void,
    reject: (error: UpstreamError) => void,
    done: () => void,
    span: Span | undefined,
  ) {
    this.#route = route;
    this.#timeoutMs = timeoutMs;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#done = done;
    this.#span = span;
    this.#timer = setTimeout(expire, timeoutMs, this);
    this.#watching = watch(stops, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Ended while it waited for a connection: undici has not written it yet, and now never will.
    if (this.#settled) controller.abort(new Error('attempt ended'));
    else this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    if (status < 200) return;
    this.#status = status;
    this.#retryAfter = headers['retry-after'];
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  // undici ends every request with exactly one of these two, including one aborted before it was written.
  onResponseEnd(): void {
    this.#done();
    if (!this.#end()) return;
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString();
    this.#resolve({ status: this.#status, json: parseJson(text), retryAfterSeconds: parseRetryAfter(this.#retryAfter) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#done();
    if (this.#end(errorCode(error))) this.#reject(networkFailure(this.#route, error));
  }

  /** A stop signal: the request was handed to the pool, so it may have reached the upstream. */
  stop(): void {
    this.#fail(abortedFailure(this.#route, true));
  }

  expire(): void {
    this.#fail(timeoutFailure(this.#route, this.#timeoutMs));
  }

  #fail(failure: UpstreamError): void {
    if (!this.#end(failure.kind)) return;
    this.#controller?.abort(failure);
    this.#reject(failure);
  }

  /**
   * True for the first of the events that may end the exchange, which also ends its client span: with the
   * answer's status, or with `errorType` when no whole answer came (a network error's code, timeout, aborted).
   */
  #end(errorType?: string): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#watching.end();
    if (this.#span) endClientSpan(this.#span, this.#status, errorType);
    return true;
  }
}

const expire = (exchange: Exchange) => exchange.expire();

/** `path` with the values of the filters that name a person REDACTED (query.ts's PERSONAL_PARAMETERS). */
function withoutPersonalData(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? path : `${path.slice(0, q + 1)}${withValuesRedacted(path.slice(q + 1), PERSONAL_PARAMETERS)}`;
}

/** A network error's code for the client span (`ECONNRESET`, `UND_ERR_SOCKET`, …): low-cardinality, never its text. */
function errorCode(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error.name;
}

/** `redact`: the gateway's redactor, for the client span's URL (an id a caller sent is its own text). */
export function createTransport(config: ClientConfig, redact: Redact): Transport {
  // One pool per origin (the client has one), keep-alive by default. With no cap of its own (null) it never holds
  // a request back: the bulkhead is the one queue (fair per key, with its timeouts). A request the pool held would
  // be written only once a connection frees, its client span open all the while, and the attempt's deadline
  // spent waiting in a queue nobody sees (test/upstream/tracing.test.ts has 128 calls at once).
  const pool = new Pool(config.origin, { connections: config.connections });
  const headers: Record<string, string> = {
    authorization: `Bearer ${config.token}`,
    // The API's own samples ask for identity; it also keeps error bodies readable without decompression.
    'accept-encoding': 'identity',
    accept: 'application/json',
  };
  const jsonHeaders = { ...headers, 'content-type': 'application/json' };
  const origin = new URL(config.origin);
  const server: UpstreamServer = { address: origin.hostname, port: Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80) };
  const base = `${origin.origin}${config.basePath}`;

  return {
    send(req, body, timeoutMs, stops, requestId, attempt, done) {
      if (stopped(stops)) {
        done();
        return Promise.reject(abortedFailure(req.route));
      }
      const common = body === undefined ? headers : jsonHeaders;
      const own = requestId ? { ...common, 'x-request-id': requestId } : common;
      // The attempt's client span is made here, in the attempt's own context, where the request is handed to undici.
      const span = startClientSpan(req.method, req.route, attempt, server, () => redact(base + withoutPersonalData(req.path)));
      return new Promise((resolve, reject) => {
        pool.dispatch(
          {
            method: req.method,
            path: config.basePath + req.path,
            headers: span ? traceHeaders(span, own) : own,
            body,
            // The deadline covers headers and body together; undici's own idle timers would only blur which
            // limit fired.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          new Exchange(req.route, timeoutMs, stops, resolve, reject, done, span),
        );
      });
    },
    close: () => pool.close(),
  };
}
