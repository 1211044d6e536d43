// Which IP addresses webhooks may be sent to: public unicast ones only. Everything else a receiver could name
// (this host, the private network, the cloud metadata service at 169.254.169.254, multicast, documentation and
// reserved ranges, deprecated transition forms) is refused, so a registered URL cannot make the gateway reach
// inside its own network (server-side request forgery).
//
// The ranges come from ipaddr.js, which keeps the IANA special-purpose registries for both families: a table of
// our own would be bit maths to get wrong and to keep current. The policy is deny by default: anything
// ipaddr.js does not call 'unicast' is refused, so a range it learns later is refused without a change here.
// An IPv6 address that embeds an IPv4 one (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated, IPv4-compatible
// ::a.b.c.d, NAT64 64:ff9b::/96) reaches that IPv4 address, so it is judged by it: ::ffff:127.0.0.1 is
// loopback, 64:ff9b::808:808 is as public as 8.8.8.8.

import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** What the ranges ipaddr.js names are, in words for a refusal. */
const KINDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  private: 'a private address',
  uniqueLocal: 'a unique-local (private IPv6) address',
  deprecatedSiteLocal: 'a site-local (private IPv6) address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  '6to4': 'a 6to4 transition address',
  teredo: 'a Teredo transition address',
};

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 one carries in its last 32 bits, and what that form is called; null if none. */
function embeddedIPv4(address: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | null {
  const range: string = address.range();
  const [a, b, c, d, e, f, g, h] = address.parts as [number, number, number, number, number, number, number, number];
  const v4 = new ipaddr.IPv4([g >> 8, g & 0xff, h >> 8, h & 0xff]);
  if (range === 'ipv4Mapped') return { form: 'an IPv4-mapped form', v4 };
  if (range === 'rfc6145') return { form: 'an IPv4-translated form', v4 };
  if (address.match(NAT64_WELL_KNOWN)) return { form: 'a NAT64 form', v4 };
  // ::a.b.c.d (deprecated by RFC 4291); :: and ::1 themselves are the unspecified and loopback addresses.
  const compatible = a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0;
  if (compatible && range !== 'unspecified' && range !== 'loopback') return { form: 'an IPv4-compatible form', v4 };
  return null;
}

function kindOf(address: Address): string | null {
  if (address.kind() === 'ipv6') {
    const embedded = embeddedIPv4(address as ipaddr.IPv6);
    if (embedded !== null) {
      const kind = kindOf(embedded.v4);
      return kind === null ? null : `${embedded.form} of ${embedded.v4.toString()}, ${kind}`;
    }
  }
  const range: string = address.range();
  if (range === 'unicast') return null;
  return KINDS[range] ?? `a special-purpose address (${range})`;
}

/**
 * An IP address as ipaddr.js holds it; null when the text is none. Brackets and a zone index (`fe80::1%eth0`,
 * which names an interface, not another address) are dropped. IPv6 goes through the WHATWG URL parser first:
 * ipaddr.js reads a dotted tail as IPv4-mapped whatever comes before it (`::127.0.0.1`, IPv4-compatible, would
 * become `::ffff:127.0.0.1`), and resolvers print IPv4-compatible answers that way; the URL parser writes the
 * same address in hex, which ipaddr.js reads right.
 */
function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const [address = ''] = bare.split('%');
  switch (isIP(address)) {
    case 4:
      return ipaddr.IPv4.parse(address);
    case 6:
      return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
    default:
      return null;
  }
}

/**
 * Why webhooks may not go to this IP address, in words ("a private address", "an IPv4-mapped form of
 * 127.0.0.1, a loopback address"); null when it is public unicast. Not an IP address: "not an IP address".
 */
export function forbiddenAddressKind(address: string): string | null {
  const parsed = parseAddress(address);
  return parsed === null ? 'not an IP address' : kindOf(parsed);
}

/**
 * One spelling per address, so an allow-list entry and an address compare equal however either was written
 * (`::1`, `0:0::1`, `[::1]`). Not an IP address: null. IPv4-mapped forms stay IPv6: allowing 127.0.0.1 allows
 * that address, not its other spellings under another family.
 */
export function canonicalAddress(text: string): string | null {
  return parseAddress(text)?.toString() ?? null;
}
