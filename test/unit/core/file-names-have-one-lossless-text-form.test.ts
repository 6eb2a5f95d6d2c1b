/**
 * A file name is bytes; every name that crosses into text (results, JSON,
 * CLI and MCP arguments, the store) is written in one text form and turned
 * back into the exact bytes at the filesystem edge. The form is lossless
 * (encode then decode is the identity on any byte string), unambiguous
 * (distinct byte names never share a text form), canonical (decoding any
 * accepted spelling and encoding again gives one text), and visible (no raw
 * control, bidi or invisible character, no U+FFFD standing in for a byte).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalText, nameBytes, nameText, stringText } from '../../../src/core/name-text.js';

const bytes = (...values: number[]) => Buffer.from(values);
/** Byte strings biased towards the hard cases: ASCII, backslashes, UTF-8 lead and continuation bytes, controls. */
const nameBytesArb = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x5c, 0x78, 0x75, 0x7b, 0x20, 0x2f, 0xc3, 0xa9, 0xe2, 0x80, 0xae, 0xef, 0xbf, 0xbd, 0xf0, 0x9f, 0xed, 0xa0),
    ),
    { maxLength: 24 },
  )
  .map((values) => Buffer.from(values));
const INVISIBLE_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffd]/u;

describe('the file name text form', () => {
  it('leaves a plain UTF-8 name as it is', () => {
    expect(nameText(Buffer.from('out/report v2.json'))).toBe('out/report v2.json');
    expect(nameText(Buffer.from('données/résumé.txt'))).toBe('données/résumé.txt');
  });

  it('writes a byte that is not UTF-8 as \\xHH and a real U+FFFD as \\ufffd, so the two never look alike', () => {
    expect(nameText(bytes(0x72, 0xff, 0x2e, 0x74))).toBe('r\\xff.t');
    expect(nameText(Buffer.from('r\ufffd.t'))).toBe('r\\ufffd.t');
    expect(nameText(bytes(0xed, 0xa0, 0x80))).toBe('\\xed\\xa0\\x80'); // an encoded surrogate is not UTF-8
    expect(nameText(bytes(0xc0, 0xaf))).toBe('\\xc0\\xaf'); // nor is an overlong '/'
  });

  it('escapes a backslash, so a real `\\xff` in a name never reads as the byte', () => {
    expect(nameText(Buffer.from('a\\xff'))).toBe('a\\\\xff');
    expect(nameBytes('a\\\\xff')).toEqual(Buffer.from('a\\xff'));
    expect(nameBytes('a\\xff')).toEqual(bytes(0x61, 0xff));
  });

  it('escapes controls, bidi and invisible characters and a space at the edge of a component', () => {
    expect(nameText(Buffer.from('payload.sh\rreport.json'))).toBe('payload.sh\\rreport.json');
    expect(nameText(Buffer.from('clip\x1b]52\x07'))).toBe('clip\\x1b]52\\x07');
    expect(nameText(Buffer.from('invoice\u202etxt.exe'))).toBe('invoice\\u202etxt.exe');
    expect(nameText(Buffer.from('report\u200b.json'))).toBe('report\\u200b.json');
    expect(nameText(Buffer.from('tag\u{e0041}'))).toBe('tag\\u{e0041}');
    expect(nameText(Buffer.from(' a b /c '))).toBe('\\x20a b\\x20/c\\x20');
  });

  it('refuses an escape it does not define rather than guessing', () => {
    for (const bad of ['a\\b', 'a\\', '\\x4', '\\xzz', '\\u12', '\\u{110000}', '\\ud800', '\\u{}', 'lone\ud800']) expect(() => nameBytes(bad), bad).toThrow();
  });

  it('accepts any spelling of a name and canonicalizes it to the one text the listing shows', () => {
    expect(canonicalText('\\x41\\xc3\\xa9')).toBe('Aé');
    expect(canonicalText('payload.sh\rreport.json')).toBe('payload.sh\\rreport.json');
    expect(canonicalText('r\ufffd.txt')).toBe('r\\ufffd.txt');
    expect(canonicalText('\\u{202e}')).toBe('\\u202e');
  });

  it('decodes what it encodes, for any byte string', () => {
    fc.assert(
      fc.property(nameBytesArb, (name) => nameBytes(nameText(name)).equals(name)),
      { seed: 20261130, numRuns: 5000 },
    );
  });

  it('never gives two distinct byte names the same text form', () => {
    fc.assert(
      fc.property(nameBytesArb, nameBytesArb, (a, b) => a.equals(b) || nameText(a) !== nameText(b)),
      { seed: 20261131, numRuns: 5000 },
    );
    // The pairs the red team used, and their neighbours.
    const names = [bytes(0x72, 0xff), Buffer.from('r\ufffd'), Buffer.from('r\\xff'), Buffer.from('r\\ufffd'), bytes(0x72, 0xef, 0xbf), Buffer.from('r')];
    expect(new Set(names.map(nameText)).size).toBe(names.length);
  });

  it('shows no raw control or invisible character, and is its own canonical form', () => {
    fc.assert(
      fc.property(nameBytesArb, (name) => {
        const text = nameText(name);
        return !INVISIBLE_OR_CONTROL.test(text) && canonicalText(text) === text;
      }),
      { seed: 20261132, numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 16 }), (raw) => {
        const text = stringText(raw);
        return !INVISIBLE_OR_CONTROL.test(text) && nameBytes(text).equals(Buffer.from(raw, 'utf8'));
      }),
      { seed: 20261133, numRuns: 3000 },
    );
  });
});

describe('look-alike names (red team round 3)', () => {
  it('print NFC and NFD, private-use and blank look-alikes apart', () => {
    const pairs: Array<[string, string]> = [
      ['café.txt', 'cafe\u0301.txt'],
      ['p.txt', 'p\ue000.txt'],
      ['a b.txt', 'a\u2800b.txt'],
    ];
    for (const [a, b] of pairs) {
      const [ta, tb] = [nameText(Buffer.from(a)), nameText(Buffer.from(b))];
      expect(ta).not.toBe(tb);
      expect(nameBytes(tb)).toEqual(Buffer.from(b));
    }
  });
});
