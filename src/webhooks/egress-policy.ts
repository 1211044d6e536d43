// Where a webhook may go out: a URL (url-policy.ts) whose host's every address is public (address-policy.ts),
// on port 443 or 80 (or WEBHOOK_ALLOWED_PORTS), unless the operator listed the host or those addresses (then
// any port). The egress asks it at registration (check) and again at each attempt, which then connects to
// exactly the addresses judged. A name refused, whether it resolves inside or not at all, gets one refusal
// naming no address: what it resolved to is for the debug log only.

import { lookup as dnsLookup } from 'node:dns/promises';
import { forbiddenAddressKind } from './address-policy.js';
import { allowListOf, parseEndpointUrl, type EndpointUrl, type Refusal } from './url-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (not only the first), as `dns.lookup(name, { all: true })` answers. */
export type ResolveAll = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface EgressPolicyOptions {
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
}

/** getaddrinfo, as a connection would resolve (hosts file included), in the process's order (--dns-result-order). */
async function systemResolveAll(hostname: string): Promise<readonly ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** A DNS or connection error in one line, its code first. */
export function errorText(error: unknown): string {
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

export type Judgement =
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

/**
 * The URL against the policy, with the addresses it may be reached at. `resolveAllowed`: whether a listed
 * name is resolved too (a delivery needs an address; a registration of a listed name does not).
 */
export type JudgeUrl = (text: string, resolveAllowed: boolean, signal?: AbortSignal) => Promise<Judgement>;

export function createEgressPolicy(options: EgressPolicyOptions): JudgeUrl {
  const isAllowed = allowListOf(options.allowedHosts);
  const ports = new Set([...STANDARD_PORTS, ...(options.allowedPorts ?? [])]);
  const resolveAll = options.lookup ?? systemResolveAll;

  const refusedName = (host: string, detail: object): Judgement => {
    options.logger?.debug({ host, ...detail }, 'webhooks: a host name refused by the address policy');
    return { kind: 'refused', refusal: unreachableName(host) };
  };

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
  return judge;
}
