/**
 * Red team, session 12: the redactor answered "do these bytes begin a
 * secret's value?" to a job that chose the bytes (an echo on any allowed
 * host). A body ending in 4 hex characters of the value's start came back
 * masked, any other end as it was: a 40-character value was walked to in
 * 5,248 requests. And bytes that could begin a value were held for the next
 * read, the rest not: when bytes came back, and where a re-chunked body's
 * chunks ended, answered the same question a character at a time. Now:
 *  - a stream holds back the same number of bytes whatever they are, so
 *    what is released, and a chunked body's chunks, never depend on them;
 *  - an end is masked only when it encodes 4 of the value's bytes (8 hex
 *    characters), and each such mask is a probe, on which the proxy cuts
 *    the job's network (its own test); an end masked anyway as a whole
 *    value (one value beginning another) is no probe.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValueMasker } from '../../../../src/core/network/egress-response-redact.js';
import type { JobSecret } from '../../../../src/core/network/egress-secrets.js';
import { redactInPieces } from '../../../helpers/response-redactor.js';

const secret = (name: string, value: string): JobSecret => ({ name, value, host: 'api.test', body: false, placeholder: `hs-secret-${name}-${'0'.repeat(32)}` });
const S = secret('TOK', 'Q_yrNX7nFEPFgNwWf3qIU4tHNmnZf8Dx_wtLILQH');
const HEX = Buffer.from(S.value).toString('hex');
const printable = fc.string({ unit: fc.constantFrom(...'abcdefQ_yrNX7n0123456789'.split('')), minLength: 1, maxLength: 60 });

/** What a masker releases for each read, in order, and what it flushes at the end. */
function releases(reads: string[], secrets: JobSecret[] = [S]): { sizes: number[]; probes: number } {
  let probes = 0;
  const m = ValueMasker.of(secrets, undefined, () => void probes++);
  const sizes = reads.map((r) => m.push(Buffer.from(r, 'latin1')).length);
  sizes.push(m.flush().length);
  return { sizes, probes };
}

describe('the redactor', () => {
  it('releases as many bytes of each read whatever they are: a value’s start or not', () => {
    fc.assert(
      fc.property(fc.array(printable, { minLength: 1, maxLength: 6 }), fc.nat({ max: S.value.length - 1 }), (reads, cut) => {
        // The same reads, the last one ending instead in the value's first bytes (as long as the original).
        const last = reads[reads.length - 1]!;
        const start = S.value.slice(0, Math.min(last.length, cut + 1));
        const probing = [...reads.slice(0, -1), last.slice(0, last.length - start.length) + start];
        expect(releases(probing).sizes.slice(0, -1)).toEqual(releases(reads).sizes.slice(0, -1));
      }),
      { seed: 1201, numRuns: 300 },
    );
  });

  it('re-chunks a chunked body into the same chunks whatever their bytes', () => {
    const chunked = (pieces: string[]) =>
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${pieces.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('')}0\r\n\r\n`;
    const sizes = (text: string) => [...text.matchAll(/\r\n([0-9a-f]+)\r\n/g)].map((m) => m[1]);
    for (let n = 1; n <= 12; n++) {
      const plain = ['x'.repeat(50) + 'z'.repeat(n), 'after'];
      const probing = ['x'.repeat(50) + S.value.slice(0, n), 'after'];
      const a = redactInPieces([S], chunked(plain), [], ['GET']);
      const b = redactInPieces([S], chunked(probing), [], ['GET']);
      expect(sizes(b.text), `a chunk ending in the value's first ${n} bytes`).toEqual(sizes(a.text));
      expect(b.probes).toBe(0); // mid-body: nothing is masked for a start there, the next chunk decides
    }
  });

  it('masks and reports an end that encodes 4 of the value’s bytes, never fewer', () => {
    expect(releases([`ends ${S.value.slice(0, 3)}`])).toEqual({ sizes: [0, 8], probes: 0 });
    expect(releases([`ends ${HEX.slice(0, 7)}`])).toMatchObject({ probes: 0 }); // 3½ bytes in hex
    expect(releases([`ends ${S.value.slice(0, 4)}`]).probes).toBe(1);
    expect(releases([`ends ${HEX.slice(0, 8)}`]).probes).toBe(1);
    let probes = 0;
    const m = ValueMasker.of([S], undefined, () => void probes++);
    const out = Buffer.concat([m.push(Buffer.from(`ends ${HEX.slice(0, 8)}`, 'latin1')), m.flush()]).toString('latin1');
    expect(out).toBe(`ends ${'*'.repeat(8)}`);
    const short = ValueMasker.of([S]);
    expect(Buffer.concat([short.push(Buffer.from(`ends ${HEX.slice(0, 7)}`, 'latin1')), short.flush()]).toString('latin1')).toBe(`ends ${HEX.slice(0, 7)}`);
  });

  it('reports no probe for an end that a whole value covers, though it begins a longer one', () => {
    const a = secret('A', 'tok-1234567890abcdef');
    const b = secret('B', 'tok-1234567890abcdef-and-more-of-it');
    const { sizes, probes } = releases([`saw ${a.value}`], [a, b]);
    expect(probes).toBe(0);
    expect(sizes.reduce((x, y) => x + y)).toBe(4 + a.value.length);
  });

  it('names a refused coding only from its own list, never in the host’s words', () => {
    const response = (coding: string) => `HTTP/1.1 200 OK\r\nContent-Encoding: ${coding}\r\nContent-Length: 2\r\n\r\nhi`;
    expect(redactInPieces([S], response('gzip'), [], ['GET']).refused).toBe('compressed: gzip');
    const reflected = redactInPieces([S], response(S.value), [], ['GET']).refused!;
    expect(reflected).toBe('compressed: a coding not listed here');
    expect(reflected.toLowerCase()).not.toContain(S.value.slice(0, 4).toLowerCase());
    const transfer = `HTTP/1.1 200 OK\r\nTransfer-Encoding: ${S.value}, chunked\r\n\r\n0\r\n\r\n`;
    expect(redactInPieces([S], transfer, [], ['GET']).refused).toBe('compressed: a coding not listed here');
  });
});

describe('the redactor, on an honest body', () => {
  it('reports no probe for an end inside a whole value begun in an earlier read (red team 2)', () => {
    // The upper-case hex form's tail is also a start of that form: the end is a possible start, covered by the value.
    const v = secret('V', 'wbwbbwww<wb<<wbwwbwb');
    const hex = Buffer.from(v.value).toString('hex').toUpperCase();
    const body = `xx${hex}`;
    for (const cut of [0, 3, 20]) {
      let probes = 0;
      const m = ValueMasker.of([v], undefined, () => void probes++);
      const out = Buffer.concat([m.push(Buffer.from(body.slice(0, cut), 'latin1')), m.push(Buffer.from(body.slice(cut), 'latin1')), m.flush()]).toString(
        'latin1',
      );
      expect(out).not.toContain(hex.slice(0, 8));
      expect(probes, `read split at ${cut}`).toBe(0);
    }
  });
});

describe('the redactor, on an encoded form’s start', () => {
  /** Whether an end of `end` is masked (and a probe) for the secret `value`. */
  const masks = (value: string, end: string) => {
    let probes = 0;
    const m = ValueMasker.of([secret('E', value)], undefined, () => void probes++);
    Buffer.concat([m.push(Buffer.from(`x${end}`, 'latin1')), m.flush()]);
    return probes > 0;
  };

  it('needs 6 base64 characters (4 bytes), never the 5 that pinned 3 bytes and 6 bits (red team 2)', () => {
    const value = 'Zq9secretVALUE1234567890abcdefXY';
    const b64 = Buffer.from(`\0${value}`).toString('base64').slice(4); // the offset-1 form: it starts at the value's byte 2
    expect(masks(value, b64.slice(0, 5))).toBe(false);
    expect(masks(value, b64.slice(0, 6))).toBe(true);
  });

  it('needs an escape-heavy JSON form’s first 4 bytes whole, however long their escapes', () => {
    const value = 'ghp_Zq9secretVALUE1234567890abcdef';
    const escaped = [...value].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('');
    expect(escaped.startsWith('ghp\\u005f')).toBe(true);
    expect(masks(value, escaped.slice(0, 4))).toBe(false); // `ghp\` pins 3 bytes
    expect(masks(value, escaped.slice(0, 8))).toBe(false); // `ghp\u005` still 3
    expect(masks(value, escaped.slice(0, 9))).toBe(true); // `ghp\u005f`: 4
  });
});
