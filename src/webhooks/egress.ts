// Where webhooks go out: the check a URL passes at registration, and each HTTP attempt of a delivery. Both
// resolve the host (every address it has), refuse when any address is not public (address-policy.ts) unless
// the operator listed the host or that address, and an attempt then connects to exactly the addresses it just
// checked: the connection's own DNS lookup is replaced by one that answers those addresses, so a name that
// changes its answer between the check and the connection (DNS rebinding) still reaches a checked address.
// TLS still verifies the certificate for the name (undici sends it as SNI and checks it). Only ports 443 and 80
// (and WEBHOOK_ALLOWED_PORTS) are reached, but on a listed host. A name refused, whether it resolves inside or
// not at all, gets one refusal naming no address: what it resolved to is for the debug log only.
//
// Each attempt has a connection of its own, dropped when the attempt ends: nothing is pooled across
// deliveries, so no connection outlives the check that allowed it, and a body cut at its bound leaves no
// half-read socket behind. Redirects are never followed: undici's request() answers a 3xx as it is.

import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Client } from 'undici';
import { untraced } from '../telemetry/spans.js';
import { forbiddenAddressKind } from './address-policy.js';
import type { AttemptOutcome, AttemptRequest, CheckEndpointUrl, SendAttempt, UrlVerdict } from './attempt.js';
import { allowListOf, parseEndpointUrl, type EndpointUrl, type Refusal } from './url-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (not only the first), as `dns.lookup(name, { all: true })` answers. */
export type ResolveAll = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface WebhookEgressOptions {
  /**
   * Hosts and addresses exempt from the address policy, exactly as listed (WEBHOOK_ALLOWED_HOSTS); a URL whose
   * host is listed may name any port.
   */
  allowedHosts: readonly string[];
  /** Ports beside 443 and 80 a URL may name (WEBHOOK_ALLOWED_PORTS). */
  allowedPorts?: readonly number[];
  /** Where the detail of a refused name (what it resolved to, or why it did not) goes: operators' eyes only. */
  logger?: { debug(obj: object, msg: string): void };
  /** Refuse http:// URLs (everywhere but development). */
  requireHttps: boolean;
  /** The resolver; the system's (getaddrinfo, as connections use) unless a test injects its own. */
  lookup?: ResolveAll;
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

/** getaddrinfo, as a connection would resolve (hosts file included), in the process's order (--dns-result-order). */
async function systemResolveAll(hostname: string): Promise<readonly ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

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

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // net.connect reports one error per address it tried, with an empty message of its own.
  if (error instanceof AggregateError && error.message === '') return error.errors.map(errorText).join('; ');
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (a DNS query cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
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

type Judgement =
  | { kind: 'refused'; refusal: Refusal }
  /** The attempt's deadline (or stop) came while the name was being resolved. */
  | { kind: 'interrupted'; endpoint: EndpointUrl; error: unknown }
  | { kind: 'allowed'; endpoint: EndpointUrl; addresses: readonly ResolvedAddress[] };

/** The ports every webhook URL may name: https and http. */
const STANDARD_PORTS: readonly number[] = [443, 80];

/** The port a URL connects to, its scheme's when it names none. */
const portOf = (url: URL): number => (url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port));

/** An IP address written in the URL: its caller knows it, so the refusal may say what it is. */
function forbiddenLiteral(address: string, kind: string): Refusal {
  return {
    rule: 'forbidden-address',
    message:
      `${address} is ${kind}; webhooks are not sent to private, loopback, link-local or other non-public addresses. ` +
      'To deliver inside your network, list the address in WEBHOOK_ALLOWED_HOSTS.',
  };
}

/**
 * A host name that resolves to a forbidden address, or does not resolve: one refusal for both, naming no
 * address, so that registering URLs is no oracle of the gateway's DNS (which internal names exist, where they
 * point). The detail goes to the debug log.
 */
function unreachableName(host: string): Refusal {
  return {
    rule: 'forbidden-address',
    message:
      `${host} does not resolve to public addresses only; webhooks are sent only to hosts whose every address is public ` +
      '(not private, loopback, link-local or other special ranges). Register a host name that resolves to public ' +
      'addresses, or, to deliver inside your network, list the host in WEBHOOK_ALLOWED_HOSTS.',
  };
}

export function createWebhookEgress(options: WebhookEgressOptions): WebhookEgress {
  const isAllowed = allowListOf(options.allowedHosts);
  const ports = new Set([...STANDARD_PORTS, ...(options.allowedPorts ?? [])]);
  const resolveAll = options.lookup ?? systemResolveAll;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const open = new Set<Client>();
  let closed = false;

  const refusedName = (host: string, detail: object): Judgement => {
    options.logger?.debug({ host, ...detail }, 'webhooks: a host name refused by the address policy');
    return { kind: 'refused', refusal: unreachableName(host) };
  };

  /**
   * The URL against the policy, with the addresses it may be reached at. `resolveAllowed`: whether a listed
   * name is resolved too (a delivery needs an address; a registration of a listed name does not).
   */
  async function judge(text: string, resolveAllowed: boolean, signal?: AbortSignal): Promise<Judgement> {
    const endpoint = parseEndpointUrl(text, options.requireHttps);
    if (!('url' in endpoint)) return { kind: 'refused', refusal: endpoint };
    const hostAllowed = isAllowed(endpoint.host);
    // Other ports are other services (SMTP, SSH, Redis, Docker) that a POST could reach. A listed host, or a
    // name all of whose addresses are listed, is the operator's to vouch for, on any port.
    const port = portOf(endpoint.url);
    const portRefused = (): Judgement | null =>
      ports.has(port)
        ? null
        : {
            kind: 'refused',
            refusal: {
              rule: 'port',
              message:
                `The webhook URL for ${endpoint.host} names port ${port}; webhooks are sent to ports ${[...ports].join(', ')} only. ` +
                'Use a receiver on one of those ports, or ask the operator to add the port to WEBHOOK_ALLOWED_PORTS.',
            },
          };
    if (endpoint.literal) {
      const family = endpoint.host.includes(':') ? 6 : 4;
      const kind = hostAllowed ? null : forbiddenAddressKind(endpoint.host);
      if (kind !== null) return { kind: 'refused', refusal: forbiddenLiteral(endpoint.host, kind) };
      return (!hostAllowed && portRefused()) || { kind: 'allowed', endpoint, addresses: [{ address: endpoint.host, family }] };
    }
    if (hostAllowed && !resolveAllowed) return { kind: 'allowed', endpoint, addresses: [] };
    let addresses: readonly ResolvedAddress[];
    try {
      const lookup = resolveAll(endpoint.host);
      addresses = await (signal === undefined ? lookup : untilAborted(lookup, signal));
    } catch (error) {
      if (signal?.aborted === true) return { kind: 'interrupted', endpoint, error };
      return refusedName(endpoint.host, { error: errorText(error) });
    }
    if (addresses.length === 0) return refusedName(endpoint.host, { error: 'no addresses' });
    if (!hostAllowed) {
      for (const { address } of addresses) {
        const kind = isAllowed(address) ? null : forbiddenAddressKind(address);
        if (kind !== null) return refusedName(endpoint.host, { address, kind });
      }
      if (!addresses.every(({ address }) => isAllowed(address))) {
        const refused = portRefused();
        if (refused) return refused;
      }
    }
    return { kind: 'allowed', endpoint, addresses };
  }

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
      client = new Client(endpoint.url.origin, {
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
        // Untraced: the receiver's URL (its path or query may hold its token) never becomes a span attribute,
        // and no traceparent of ours is sent to a third party.
        const sender = client;
        response = await untraced(() =>
          sender.request({
            method: 'POST',
            path: `${endpoint.url.pathname}${endpoint.url.search}`,
            headers: request.headers,
            body: request.body,
            signal: deadline.signal,
            // Connection: close tells the receiver the connection ends with this attempt (it is dropped anyway).
            reset: true,
          }),
        );
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
