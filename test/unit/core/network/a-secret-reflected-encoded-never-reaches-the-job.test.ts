/**
 * Reflection in an encoded form: a secret's host may send the value back
 * escaped in a JSON string (PHP's `\/`, Python's `\u00e9`, Go's and .NET's
 * HTML-safe escapes, JSON in JSON), percent-encoded in a URL or a form
 * (upper or lower hex, `/` or `!'()*` left as is, a space as `+`),
 * HTML-escaped in an error page, in base64 (the
 * value at any offset of a longer encoded text, as an echoed Basic
 * `user:value`; standard or URL-safe) or in hex. The job sees none of them,
 * however the upstream's bytes are split, and every body keeps its length.
 * A value shorter than ENCODED_FORMS_MIN_BYTES is masked only as is (its
 * encodings would match too much of an unrelated body).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobSecret } from '../../../../src/core/network/egress-secrets.js';
import { ENCODED_FORMS_MIN_BYTES, secretValueForms } from '../../../../src/core/network/secret-value-forms.js';
import { redactInPieces } from '../../../helpers/response-redactor.js';

const secret = (name: string, value: string): JobSecret => ({ name, value, host: 'api.test', body: false, placeholder: `hs-secret-${name}-${'0'.repeat(32)}` });
const TOKEN = secret('TOKEN', 'sk/live+01234 56789=a<b>&c"déf');
const V = TOKEN.value;
const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
/** `prefix`, the value and `suffix` in base64, with the part that depends on the value: its groups, shared ones included. */
function b64(prefix: string, suffix = '', alphabet: 'standard' | 'url' = 'standard') {
  const encoded = Buffer.from(`${prefix}${V}${suffix}`, 'utf8').toString('base64');
  const text = alphabet === 'url' ? encoded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : encoded;
  const from = Math.floor(Buffer.byteLength(prefix) / 3) * 4;
  const to = Math.ceil((Buffer.byteLength(prefix) + Buffer.byteLength(V)) / 3) * 4;
  return { text, valuePart: text.slice(from, to) };
}
const whole = (text: string) => ({ text, valuePart: text });

/** What an echoing host writes, each built here on its own (not from secret-value-forms.ts, which they check). */
const ENCODED: Record<string, { text: string; valuePart: string }> = {
  'JSON (JSON.stringify)': whole(JSON.stringify(V).slice(1, -1)),
  "JSON (PHP's \\/)": whole(JSON.stringify(V).slice(1, -1).split('/').join('\\/')),
  "JSON (Python's ensure_ascii)": whole(JSON.stringify(V).slice(1, -1).replace('é', '\\u00e9')),
  "JSON (Go's, HTML-safe)": whole(JSON.stringify(V).slice(1, -1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')),
  "JSON (.NET's default)": whole(
    JSON.stringify(V)
      .slice(1, -1)
      .replace(/[<>&+]/g, (c) => `\\u00${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace('é', '\\u00E9')
      .replace('\\"', '\\u0022'),
  ),
  'JSON in JSON': whole(JSON.stringify(JSON.stringify(V).slice(1, -1)).slice(1, -1)),
  encodeURIComponent: whole(encodeURIComponent(V)),
  'URLSearchParams (space as +)': whole(new URLSearchParams({ k: V }).toString().slice(2)),
  encodeURI: whole(encodeURI(V)),
  'HTML-escaped': whole(V.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')),
  'percent, lower hex': whole(encodeURIComponent(V).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())),
  "Python's quote (keeps /)": whole(encodeURIComponent(V).split('%2F').join('/')),
  base64: b64(''),
  'base64 of user:value': b64('user:'),
  'base64 of u:value': b64('u:'),
  'base64 of us:value, more after': b64('us:', 'zz'),
  'base64url of x:value': b64('x:', '', 'url'),
  hex: whole(Buffer.from(V, 'utf8').toString('hex')),
  'HEX (upper)': whole(Buffer.from(V, 'utf8').toString('hex').toUpperCase()),
};

/**
 * The longest run of the value's part of an encoding that shows in `text`. At most 4 characters may: a base64
 * group the value shares with what is around it depends on both, and is left as is.
 */
function longestShown(text: string, valuePart: string): number {
  let best = 0;
  for (let i = 0; i < valuePart.length; i++) for (let j = i + best + 1; j <= valuePart.length && text.includes(valuePart.slice(i, j)); j++) best = j - i;
  return best;
}

describe('a secret reflected in an encoded form', () => {
  it.each(Object.entries(ENCODED))('never shows in %s, however split, and the body keeps its length', (_, { text: encoded, valuePart }) => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 600 }), { maxLength: 8 }), (cuts) => {
        const body = `{"echo":"${bytes(encoded)}"}`;
        const response = `HTTP/1.1 200 OK\r\nLocation: /cb?t=${bytes(encoded)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
        const { text, refused } = redactInPieces([TOKEN], response, cuts, ['GET']);
        expect(refused).toBeUndefined();
        expect(longestShown(text, bytes(valuePart))).toBeLessThanOrEqual(4);
        expect(text).toContain(`Location: /cb?t=`);
        expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toHaveLength(body.length);
      }),
      { seed: 181, numRuns: 40 },
    );
  });

  it('masks a short value as is and leaves its encodings alone', () => {
    const pin = 'q7/Z+';
    expect(Buffer.byteLength(pin)).toBeLessThan(ENCODED_FORMS_MIN_BYTES);
    expect(secretValueForms(pin)).toEqual([pin]);
    const body = `{"a":"${pin}","b":"${encodeURIComponent(pin)}"}`;
    const { text } = redactInPieces([secret('PIN', pin)], `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`, [], ['GET']);
    expect(text).not.toContain(`"${pin}"`);
    expect(text).toContain(encodeURIComponent(pin));
  });
});
