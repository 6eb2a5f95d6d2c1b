/**
 * The allow-list (#18) means exactly what it says: an exact host, a
 * wildcard for subdomains only, web ports unless a port is given, IP
 * literals only when listed; and a private, loopback or link-local address
 * is refused unless an IP-literal pattern names it. Bad patterns are
 * refused with the pattern named. Property: a host outside every listed
 * domain is never allowed, whatever its shape.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowListDigest, checkAddress, checkTarget, isPrivateAddress, parseAllowList, parsePattern } from '../../../../src/core/network/allow-list.js';
import { networkPolicy } from '../../../../src/core/network/network-input.js';

const patterns = (...specs: string[]) => parseAllowList([`allow=${specs.join(',')}`]).map(parsePattern);

describe('the network allow-list', () => {
  it('allows an exact host on the web ports only, unless a port is given', () => {
    const list = patterns('api.example.com', 'git.example.com:22');
    expect(checkTarget(list, 'API.Example.com.', 443).allowed).toBe(true);
    expect(checkTarget(list, 'api.example.com', 80).allowed).toBe(true);
    expect(checkTarget(list, 'api.example.com', 8443)).toMatchObject({ allowed: false, reason: 'not in allow-list' });
    expect(checkTarget(list, 'git.example.com', 22).allowed).toBe(true);
    expect(checkTarget(list, 'git.example.com', 443).allowed).toBe(false);
    expect(checkTarget(list, 'example.com', 443).allowed).toBe(false);
  });

  it('matches a wildcard on subdomains only, never the apex or a look-alike', () => {
    const list = patterns('*.example.com');
    expect(checkTarget(list, 'a.b.example.com', 443).allowed).toBe(true);
    expect(checkTarget(list, 'example.com', 443).allowed).toBe(false);
    expect(checkTarget(list, 'evilexample.com', 443).allowed).toBe(false);
    expect(checkTarget(list, 'example.com.evil.test', 443).allowed).toBe(false);
  });

  it('allows an IP literal only when listed, and names the reason otherwise', () => {
    const list = patterns('127.0.0.1:8080', '[::1]:9000');
    expect(checkTarget(list, '127.0.0.1', 8080).allowed).toBe(true);
    expect(checkTarget(list, '[0:0::1]', 9000).allowed).toBe(true);
    expect(checkTarget(list, '10.0.0.1', 8080)).toMatchObject({ allowed: false, reason: 'ip literal not in allow-list' });
    expect(checkTarget(patterns('example.com'), '93.184.216.34', 443)).toMatchObject({ allowed: false, reason: 'ip literal not in allow-list' });
  });

  it('refuses private, loopback and link-local addresses unless an IP-literal pattern names them', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '203.0.113.80', '2606:4700::1111', '172.32.0.1']) expect(isPrivateAddress(a), a).toBe(false);
    expect(checkAddress(patterns('api.test'), '10.0.0.5', 443)).toMatchObject({ allowed: false, reason: 'private address' });
    expect(checkAddress(patterns('api.test', '10.0.0.5:443'), '10.0.0.5', 443).allowed).toBe(true);
    expect(checkAddress(patterns('api.test'), '93.184.216.34', 443).allowed).toBe(true);
  });

  it('refuses malformed patterns, naming them', () => {
    for (const bad of ['*.com', 'a..b', 'host:99999', 'host:x', '*', 'a_b.example', '[zz]']) expect(() => parsePattern(bad), bad).toThrow(/pattern/);
  });

  it('normalises, sorts and de-duplicates, and its digest pins the list whatever the order', () => {
    expect(parseAllowList(['allow=B.example.com,a.example.com', 'allow=a.example.com'])).toEqual(['a.example.com', 'b.example.com']);
    expect(allowListDigest(['b', 'a'])).toBe(allowListDigest(['a', 'b']));
    expect(networkPolicy('allow=')).toEqual({ network: 'allowlist', networkAllow: [] });
    expect(networkPolicy(undefined)).toEqual({ network: 'disabled' });
    expect(() => networkPolicy('everything')).toThrow(/allow=HOST/);
  });

  it('never allows a host outside every listed domain (property)', () => {
    const list = patterns('*.example.com', 'api.test');
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 65535 }), (labels, port) => {
        const host = labels.join('.');
        fc.pre(!host.endsWith('.example.com') && host !== 'api.test');
        return !checkTarget(list, host, port).allowed;
      }),
      { seed: 18, numRuns: 500 },
    );
  });
});
