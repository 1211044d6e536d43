// Where webhooks go out: the check a URL passes at registration, and each HTTP attempt of a delivery. Both ask
// the egress policy (egress-policy.ts), and an attempt then connects to exactly the addresses it just judged:
// the connection's own DNS lookup is replaced by one that answers those addresses, so a name that changes its
// answer between the check and the connection (DNS rebinding) still reaches a checked address. TLS still
// verifies the certificate for the name (undici sends it as SNI and checks it).
//
// Each attempt has a connection of its own, dropped when the attempt ends: nothing is pooled across
// deliveries, so no connection outlives the check that allowed it, and a body cut at its bound leaves no
// half-read socket behind. Redirects are never followed: undici's request() answers a 3xx as it is.

import type { LookupFunction } from 'node:net';
import type { Client } from 'undici';
// Client and request() alone, by path, as upstream/transport.ts takes Pool: undici's index loads all of undici
// (fetch, WebSocket, caches, mocks), about 2 MB of every gateway's idle memory (five starts of the production
// build, median 98.6 → 96.6 MB), for this one use.
import sendRequest from 'undici/lib/api/api-request.js';
import UndiciClient from 'undici/lib/dispatcher/client.js';
import type { AttemptOutcome, AttemptRequest, CheckEndpointUrl, SendAttempt, UrlVerdict } from './attempt.js';
import { createEgressPolicy, errorText, type EgressPolicyOptions, type ResolvedAddress } from './egress-policy.js';

/** The resolver an egress may be given (`lookup`) instead of the system's. */
export type { ResolveAll } from './egress-policy.js';

export interface WebhookEgressOptions extends EgressPolicyOptions {
  /** How much of a response body is kept for `bodyExcerpt` before the connection is dropped. */
  maxResponseBytes?: number;
}

export interface WebhookEgress {
  check: CheckEndpointUrl;
  send: SendAttempt;
  /** Drops the connections of attempts still under way (they end as failed). */
  close(): Promise<void>;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 4096;

/**
 * A connection's lookup that answers the checked addresses whatever it is asked: all of them when net.connect
 * may try several (autoSelectFamily, Happy Eyeballs), else the first.
 */
function pinnedTo(addresses: readonly ResolvedAddress[]): LookupFunction {
  const all = addresses.map(({ address, family }) => ({ address, family }));
  const [first] = all as [ResolvedAddress];
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, all);
    else callback(null, first.address, first.family);
  };
}

/** Up to `max` bytes of a response body as text; what arrived before the body broke off counts too. */
async function readExcerpt(body: AsyncIterable<Buffer>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      // Leaving the loop destroys the body, and with it the connection: the rest is never read.
      if (size >= max) break;
    }
  } catch {
    // The deadline or a broken connection cut the body short: the status already answered the attempt.
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

export function createWebhookEgress(options: WebhookEgressOptions): WebhookEgress {
  const judge = createEgressPolicy(options);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const open = new Set<Client>();
  let closed = false;

  const check: CheckEndpointUrl = async (url): Promise<UrlVerdict> => {
    const judgement = await judge(url, false);
    return judgement.kind === 'refused' ? { ok: false, ...judgement.refusal } : { ok: true };
  };

  const send: SendAttempt = async (request: AttemptRequest): Promise<AttemptOutcome> => {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    const shuttingDown = (): AttemptOutcome => {
      const message = 'The attempt was not made: the gateway is shutting down.';
      return { kind: 'failed', reason: 'connection', message, durationMs: durationMs() };
    };
    if (closed) return shuttingDown();
    // One deadline for the lookup, the connection, the headers and the bounded body; the caller's signal
    // stops the same way.
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort(new Error('timeout'));
    }, request.timeoutMs);
    const stop = () => deadline.abort(new Error('stopped'));
    request.signal?.addEventListener('abort', stop, { once: true });
    if (request.signal?.aborted === true) stop();
    const failed = (host: string, error: unknown): AttemptOutcome => {
      if (timedOut) {
        const message = `${host} did not answer within ${request.timeoutMs} ms.`;
        return { kind: 'failed', reason: 'timeout', message, durationMs: durationMs() };
      }
      const message = deadline.signal.aborted
        ? `The attempt to ${host} was stopped before an answer arrived.`
        : `Could not deliver to ${host}: ${errorText(error)}.`;
      return { kind: 'failed', reason: 'connection', message, durationMs: durationMs() };
    };

    let client: Client | undefined;
    try {
      // A refusal is read by the endpoint's owner (its deliveries' attempts): alike whether the name is gone or
      // points inside, as at registration.
      const judgement = await judge(request.url, true, deadline.signal);
      if (judgement.kind === 'interrupted') return failed(judgement.endpoint.host, judgement.error);
      if (judgement.kind === 'refused') return { kind: 'refused', ...judgement.refusal, durationMs: durationMs() };
      // close() may have come while the name was being resolved.
      if (closed) return shuttingDown();
      const { endpoint, addresses } = judgement;
      client = new UndiciClient(endpoint.url.origin, {
        connect: { lookup: pinnedTo(addresses) },
        // The deadline above is the attempt's one clock; undici's own (10 s to connect, 300 s for headers and
        // body) would only race it and name a timeout something else.
        connectTimeout: 0,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      open.add(client);
      const where = endpoint.literal ? endpoint.host : `${endpoint.host} (${addresses.map((a) => a.address).join(', ')})`;
      let response;
      try {
        // Untraced: nothing makes a client span of it (only the upstream transport makes those), so the receiver's
        // URL (its path or query may hold its token) never becomes a span attribute, and no traceparent of ours
        // is sent to a third party (test/upstream/tracing.test.ts).
        response = await sendRequest.call(client, {
          method: 'POST',
          path: `${endpoint.url.pathname}${endpoint.url.search}`,
          headers: request.headers,
          body: request.body,
          signal: deadline.signal,
          // Connection: close tells the receiver the connection ends with this attempt (it is dropped anyway).
          reset: true,
        });
      } catch (error) {
        return failed(where, error);
      }
      const bodyExcerpt = await readExcerpt(response.body, maxResponseBytes);
      return { kind: 'answered', status: response.statusCode, durationMs: durationMs(), bodyExcerpt };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', stop);
      if (client !== undefined) {
        open.delete(client);
        await client.destroy();
      }
    }
  };

  return {
    check,
    send,
    async close() {
      closed = true;
      await Promise.all([...open].map((client) => client.destroy()));
    },
  };
}
