/**
 * The two network mistakes a new user made first (#18), each refused with
 * the right words: a URL pasted as a pattern (`allow=$(npm config get
 * registry)`) names the host to give instead, and `disabled` beside an
 * allow-list is a contradiction, not an unknown word.
 */
import { describe, expect, it } from 'vitest';
import { parsePattern } from '../../../../src/core/network/allow-list.js';
import { networkPolicy } from '../../../../src/core/network/network-input.js';

describe('network argument mistakes', () => {
  it('refuse a URL, naming its host', () => {
    expect(() => parsePattern('https://registry.npmjs.org/')).toThrow(/is a URL, not a host: give its host, e.g. allow=registry.npmjs.org/);
    expect(() => parsePattern('http://user:pw@example.test:8080/x')).toThrow(/e\.g\. allow=example\.test:8080/);
  });

  it('refuse disabled beside an allow-list as a contradiction', () => {
    expect(() => networkPolicy(['allow=a.test', 'disabled'])).toThrow(/not several: got 'allow=a.test', 'disabled'/);
  });

  it('still take what they should', () => {
    expect(networkPolicy(['allow=registry.npmjs.org']).network).toBe('allowlist');
    expect(networkPolicy('disabled').network).toBe('disabled');
  });
});
