/**
 * Canonical JSON (the form receipts and policy digests are computed over)
 * gives one byte sequence per value: key order never matters, there is no
 * whitespace, it parses back to the same value, and a non-finite number is
 * refused rather than silently written as null. Seeded and bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/core/canonical-json.js';

const shuffled = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(shuffled);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, shuffled(v)]),
  );
};

describe('canonical JSON', () => {
  it('is the same bytes whatever the key order, and parses back to the value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(shuffled(value))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { seed: 16, numRuns: 200 },
    );
  });

  // Receipts already stored were digested over JSON.stringify of a key-sorted copy: the direct writer (#20) must give those bytes.
  it('gives the bytes of JSON.stringify over a copy with sorted keys, undefined members left out', () => {
    const sortedCopy = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(sortedCopy);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, sortedCopy((value as Record<string, unknown>)[k])]),
      );
    };
    const withUndefined = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.string(), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined })));
    fc.assert(
      fc.property(withUndefined, (value) => {
        expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)));
      }),
      { seed: 20, numRuns: 300 },
    );
    expect(canonicalJson([1, undefined, 'x'])).toBe('[1,null,"x"]');
    // Integer-like keys come first, in numeric order, as the copy held them.
    expect(canonicalJson({ b: 1, '10': 0, '9': 0, '': 2, '01': 3 })).toBe('{"9":0,"10":0,"":2,"01":3,"b":1}');
  });

  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 'x y' }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":"x y","z":0}]},"b":1}');
  });

  it('refuses NaN and infinities', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/finite/);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(/finite/);
  });
});
