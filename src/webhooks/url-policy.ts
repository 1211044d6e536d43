// What a webhook URL may look like before any address is looked at: http or https (https alone outside
// development), no user name or password, and a host compared in one spelling against the operator's
// allow-list. Refusals name the host, never the whole URL: a path or query may carry the receiver's token.

import { canonicalAddress } from './address-policy.js';

/** A refusal, as UrlVerdict and AttemptOutcome carry it. */
export interface Refusal {
  rule: string;
  message: string;
}

export interface EndpointUrl {
  url: URL;
  /** The host in its one spelling: lower case, no trailing dot, an IP address bare and canonical. */
  host: string;
  /** Whether `host` is an IP address (then nothing is resolved). */
  literal: boolean;
}

/**
 * One spelling of a host or address: lower case, no trailing dot, IPv6 without brackets, an address canonical
 * (`0:0::1` is `::1`). WHATWG URL already lower-cases names and reads `0x7f.1` as 127.0.0.1.
 */
export function normaliseHost(text: string): string {
  const lower = text.trim().toLowerCase();
  const address = canonicalAddress(lower);
  if (address !== null) return address;
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Whether a host or address is exempt: exactly the listed ones, compared in one spelling. */
export function allowListOf(entries: readonly string[]): (host: string) => boolean {
  const allowed = new Set(entries.map(normaliseHost).filter((entry) => entry !== ''));
  return (host) => allowed.has(normaliseHost(host));
}

/** Parses and checks a webhook URL's scheme, credentials and host; the addresses are checked elsewhere. */
export function parseEndpointUrl(text: string, requireHttps: boolean): EndpointUrl | Refusal {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { rule: 'invalid-url', message: 'The webhook URL is not a valid absolute URL (https://host/path).' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      rule: 'scheme',
      message: `Webhook URLs must use https (or http in development), not ${url.protocol.slice(0, -1)}.`,
    };
  }
  const host = normaliseHost(url.hostname);
  if (url.protocol === 'http:' && requireHttps) {
    return {
      rule: 'https-required',
      message: `The webhook URL for ${host} uses http; webhooks are sent only over https outside development. Use an https:// URL.`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      rule: 'credentials',
      message: `The webhook URL for ${host} carries a user name or password; webhook URLs may not. Verify the webhook signature in the receiver instead.`,
    };
  }
  return { url, host, literal: canonicalAddress(host) !== null };
}
