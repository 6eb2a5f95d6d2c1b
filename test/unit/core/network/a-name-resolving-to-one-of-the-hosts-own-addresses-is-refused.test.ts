/**
 * A name on the allow-list that resolves to one of the host's own interface
 * addresses reaches the host's own services (anything bound to 0.0.0.0 on
 * an allowed port) as surely as loopback does, and a public address on an
 * interface is in no private range (red team, session 12, by reading). Such
 * an address is now refused like a private one, unless an IP-literal
 * pattern names it; the host's addresses are read from its interfaces.
 */
import { describe, expect, it } from 'vitest';
import { checkAddress, ownAddressesOf, parseAllowList, parsePattern } from '../../../../src/core/network/allow-list.js';

const patterns = (...specs: string[]) => parseAllowList([`allow=${specs.join(',')}`]).map(parsePattern);
const own = ownAddressesOf({
  lo: [{ address: '127.0.0.1' }, { address: '::1' }],
  eth0: [{ address: '203.0.113.80' }, { address: '2001:db8:0:0::7' }, { address: 'fe80::1%eth0' }],
});

describe("the host's own addresses", () => {
  it('are refused like a private address, in any spelling', () => {
    for (const a of ['203.0.113.80', '::ffff:203.0.113.80', '2001:db8::7', '2001:0db8:0000:0000:0000:0000:0000:0007'])
      expect(checkAddress(patterns('api.test'), a, 443, own), a).toMatchObject({ allowed: false, reason: 'private address' });
  });

  it('are allowed when an IP-literal pattern names the address and port', () => {
    expect(checkAddress(patterns('api.test', '203.0.113.80:443'), '203.0.113.80', 443, own).allowed).toBe(true);
  });

  it('include an IPv4-mapped address however it is spelt, as the IPv4 address it reaches (red team 2)', () => {
    for (const a of ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:cb00:7150'])
      expect(checkAddress(patterns('api.test'), a, 443, own), a).toMatchObject({ allowed: false, reason: 'private address' });
  });

  it('leave every other public address as it was', () => {
    expect(checkAddress(patterns('api.test'), '203.0.113.81', 443, own).allowed).toBe(true);
    expect(checkAddress(patterns('api.test'), '203.0.113.80', 443).allowed).toBe(true); // no interface list given: the ranges alone
  });
});
