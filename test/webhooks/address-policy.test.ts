import { describe, expect, it } from 'vitest';
import { canonicalAddress, forbiddenAddressKind } from '../../src/webhooks/address-policy.js';
import { allowListOf, normaliseHost } from '../../src/webhooks/url-policy.js';

// The address policy alone, over the ranges webhooks must never reach and a few that they may.

describe('forbiddenAddressKind', () => {
  it.each([
    ['8.8.8.8'],
    ['93.184.215.14'],
    ['2606:4700:4700::1111'],
    // Embedding forms of a public IPv4 address reach that address, and are as public.
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
  ])('allows %s', (address) => {
    expect(forbiddenAddressKind(address)).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['100.64.0.1', 'a carrier-grade NAT (shared) address'],
    ['169.254.169.254', 'a link-local address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['255.255.255.255', 'the broadcast address'],
    ['224.0.0.251', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['192.0.2.10', 'a reserved or documentation address'],
    ['198.51.100.10', 'a reserved or documentation address'],
    ['203.0.113.10', 'a reserved or documentation address'],
    ['198.18.0.1', 'a reserved or documentation address'],
    ['240.0.0.1', 'a reserved or documentation address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fd12:3456::1', 'a unique-local (private IPv6) address'],
    ['fc00::1', 'a unique-local (private IPv6) address'],
    ['fec0::1', 'a site-local (private IPv6) address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a reserved or documentation address'],
    ['2002:7f00:1::1', 'a 6to4 transition address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo transition address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', 'an IPv4-mapped form of 127.0.0.1, a loopback address'],
    ['::ffff:10.0.0.1', 'an IPv4-mapped form of 10.0.0.1, a private address'],
    ['::ffff:0:a9fe:a9fe', 'an IPv4-translated form of 169.254.169.254, a link-local address'],
    ['::7f00:1', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['::0.0.0.2', 'an IPv4-compatible form of 0.0.0.2, an unspecified address'],
    // How resolvers print an IPv4-compatible answer; ipaddr.js alone would call it IPv4-mapped.
    ['::127.0.0.1', 'an IPv4-compatible form of 127.0.0.1, a loopback address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['64:ff9b::7f00:1', 'a NAT64 form of 127.0.0.1, a loopback address'],
    ['64:ff9b:1::a00:1', 'a special-purpose address (rfc6052)'],
    ['not-an-address', 'not an IP address'],
  ])('refuses %s as %s', (address, kind) => {
    expect(forbiddenAddressKind(address)).toBe(kind);
  });
});

describe('one spelling of a host', () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['  hooks.example ', 'hooks.example'],
    ['[::1]', '::1'],
    ['0:0:0::1', '::1'],
    ['[0:0::ffff:7f00:1]', '::ffff:7f00:1'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%s is %s', (text, host) => {
    expect(normaliseHost(text)).toBe(host);
  });

  it('an address stays in its family and its form', () => {
    expect(canonicalAddress('::ffff:127.0.0.1')).not.toBe(canonicalAddress('127.0.0.1'));
    expect(canonicalAddress('::127.0.0.1')).toBe('::7f00:1');
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('::ffff:7f00:1');
  });

  it('the allow-list holds exactly its entries', () => {
    const allowed = allowListOf(['127.0.0.1', 'Receiver.Test.', '[::1]', '']);
    expect(['127.0.0.1', 'receiver.test', 'RECEIVER.test.', '::1', '[0::1]'].map(allowed)).toEqual([true, true, true, true, true]);
    expect(['127.0.0.2', '::ffff:127.0.0.1', 'sub.receiver.test', 'receiver.test2', '', 'localhost'].map(allowed)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
