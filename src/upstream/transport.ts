// One HTTP exchange with the upstream: the undici pool, the headers every request carries (and the operation's
// request id), the per-attempt deadline and the caller's abort signal, reading the body, and turning "no answer"
// into the right error kind.
// Any answer that arrives (200 or not) is returned as is; deciding what a status means is the caller's job.

import { Pool } from 'undici';
import type { ClientConfig } from './config.js';
import { abortedFailure, networkFailure, timeoutFailure } from './failures.js';
import { parseRetryAfter } from './retry.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface WireRequest {
  method: HttpMethod;
  /** Route pattern for errors and logs, e.g. "GET /campaign/:id". */
  route: string;
  /** Path below the base path, parameters already encoded, query included. */
  path: string;
  /** Serialised once by the caller so every retry sends the very same bytes. */
  body?: string;
}

export interface WireResponse {
  status: number;
  /** The parsed body, or undefined when it was empty or not JSON (HTML error pages, whatever the content type). */
  json: unknown;
  retryAfterSeconds: number | null;
}

export interface Transport {
  send(req: WireRequest, timeoutMs: number, signal?: AbortSignal): Promise<WireResponse>;
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

export function createTransport(config: ClientConfig): Transport {
  // One pool per origin (the client has one), keep-alive by default; `connections` caps the sockets.
  const pool = new Pool(config.origin, { connections: config.connections });
  const headers: Record<string, string> = {
    authorization: `Bearer ${config.token}`,
    // The API's own samples ask for identity; it also keeps error bodies readable without decompression.
    'accept-encoding': 'identity',
    accept: 'application/json',
  };
  const jsonHeaders = { ...headers, 'content-type': 'application/json' };

  return {
    async send(req, timeoutMs, signal) {
      if (signal?.aborted) throw abortedFailure(req.route);
      // One controller ends the exchange for either reason; `stop` remembers which one came first so a
      // timeout and a caller abort stay distinct whatever error undici surfaces.
      const controller = new AbortController();
      let stop: 'timeout' | 'aborted' | null = null;
      const onAbort = () => {
        stop ??= 'aborted';
        controller.abort();
      };
      const timer = setTimeout(() => {
        stop ??= 'timeout';
        controller.abort();
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const requestId = config.requestId?.();
        const common = req.body === undefined ? headers : jsonHeaders;
        const res = await pool.request({
          method: req.method,
          path: config.basePath + req.path,
          headers: requestId ? { ...common, 'x-request-id': requestId } : common,
          body: req.body,
          signal: controller.signal,
          // The deadline above covers headers and body together; undici's own idle timers would only blur
          // which limit fired.
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        const text = await res.body.text();
        return {
          status: res.statusCode,
          json: parseJson(text),
          retryAfterSeconds: parseRetryAfter(res.headers['retry-after']),
        };
      } catch (err) {
        if (stop === 'timeout') throw timeoutFailure(req.route, timeoutMs);
        // The request was handed to the connection: it may have reached the upstream.
        if (stop === 'aborted') throw abortedFailure(req.route, true);
        throw networkFailure(req.route, err);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
    close: () => pool.close(),
  };
}
