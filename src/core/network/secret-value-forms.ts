/**
 * The forms a secret's value takes when its host reflects it encoded, not
 * as is — each form a real encoder writes:
 *   - a JSON string, in the styles JSON_STYLES lists (standard, PHP, Python,
 *     Go, .NET, Jackson, `/` as `\u002f`, everything escaped), and the
 *     standard one inside another JSON string;
 *   - a URL or form, percent-encoded as percentForms lists;
 *   - HTML-escaped (`&amp;` …), as an error page quoting a header;
 *   - base64, standard or URL-safe, with the value at any of the three
 *     offsets in a longer encoded text (HTTP Basic's `user:value` echoed);
 *   - hex, either case.
 * Pure. The response redactor (egress-response-redact.ts, through
 * value-matcher.ts) masks each form as it masks the value.
 *
 * Not covered, and said so in the README: any other encoder's choices
 * (each character's escape is an encoder's choice; these are the common
 * ones), base64 broken into lines (MIME, PEM), an encoding of an encoding
 * but JSON in JSON, any other transformation (a hash, a cipher, the value
 * cut in pieces or reversed; a compressed answer is refused), and a value
 * shorter than ENCODED_FORMS_MIN_BYTES, whose encodings would match too
 * much of an unrelated body to be masked.
 */

/** A value this long at least gets its encoded forms masked too; a shorter one only as is. */
export const ENCODED_FORMS_MIN_BYTES = 8;
/** A base64 run this long at least is masked (the part of an offset value's encoding that depends on the value alone). */
const BASE64_MIN_CHARS = 8;

/** How many of the value's bytes a form's first part must encode to be masked at a stream's end (value-matcher.ts). */
export const PARTIAL_VALUE_BYTES = 4;

/**
 * Every form of `value` (as secretValueForms lists them), each with how many of its first characters encode
 * PARTIAL_VALUE_BYTES of the value: the fewest of its characters a stream's end must show before it is masked as
 * a possible start. Worked out per form, from the same encoder run over the value's first 4 bytes (each encoder
 * here writes a value's prefix as a prefix of its own form), not from the form's average length: an escape early
 * in the value (`ghp\u005f…`) or base64's 6 bits a character pinned only 3 bytes that way (red team 2). Base64's
 * forms take 6 characters (36 bits); hex 8.
 */
export function secretValueFormsWithLeast(value: string): Array<{ text: string; least: number }> {
  const bytes = Buffer.from(value, 'utf8');
  const raw = bytes.toString('latin1');
  if (bytes.length < ENCODED_FORMS_MIN_BYTES) return [{ text: raw, least: Math.min(PARTIAL_VALUE_BYTES, raw.length - 1) }];
  // The value's first characters whose bytes make PARTIAL_VALUE_BYTES at least (never half a character).
  let prefix = '';
  for (const c of value) {
    if (Buffer.byteLength(prefix) >= PARTIAL_VALUE_BYTES) break;
    prefix += c;
  }
  const prefixBytes = Buffer.from(prefix, 'utf8');
  const pairs: Array<[string, number]> = [[raw, prefixBytes.length]];
  const aligned = (whole: string[], ofPrefix: string[]) => whole.forEach((text, i) => pairs.push([text, ofPrefix[i]!.length]));
  aligned(jsonForms(value), jsonForms(prefix));
  aligned(percentForms(bytes), percentForms(prefixBytes));
  aligned(htmlForms(raw), htmlForms(prefixBytes.toString('latin1')));
  for (const text of base64Forms(bytes)) pairs.push([text, Math.ceil((PARTIAL_VALUE_BYTES * 8) / 6)]);
  for (const text of [bytes.toString('hex'), bytes.toString('hex').toUpperCase()]) pairs.push([text, PARTIAL_VALUE_BYTES * 2]);
  // One text from two encoders keeps the larger count: a masked end must pin 4 bytes whichever wrote it.
  const least = new Map<string, number>();
  for (const [text, n] of pairs) least.set(text, Math.max(least.get(text) ?? 0, n));
  return [...least].map(([text, n]) => ({ text, least: Math.min(n, text.length - 1) }));
}

/** Every form of `value` to mask, each once, as latin1 text of its bytes; the value's own UTF-8 bytes first. */
export function secretValueForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [bytes.toString('latin1')];
  if (bytes.length < ENCODED_FORMS_MIN_BYTES) return forms;
  forms.push(
    ...jsonForms(value),
    ...percentForms(bytes),
    ...htmlForms(forms[0]!),
    ...base64Forms(bytes),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  );
  return [...new Set(forms)];
}

type HexCase = 'lower' | 'upper';
interface JsonStyle {
  /** `/` as is, as `\/`, or as `\u002f`. */
  slash?: 'plain' | 'backslash' | 'u';
  /** Non-ASCII characters as they are (UTF-8) or as `\uXXXX`. */
  nonAscii?: 'raw' | 'u';
  /** These characters as `\uXXXX` too (HTML-safe encoders). */
  escapeAlso?: string;
  /** Every character but a letter or digit as `\uXXXX`. */
  everything?: boolean;
  hex?: HexCase;
}

/**
 * JSON encoders as servers run them (each a style here): JavaScript, Python with ensure_ascii=False and Ruby
 * (standard); PHP's json_encode (`\/`, `\uXXXX` lower), with either flag; Python's default (`\uXXXX`
 * lower); Go's encoding/json (`<>&` and U+2028/U+2029 lower); .NET's System.Text.Json (`<>&'"+` and a
 * backtick, and non-ASCII, upper); Jackson with non-ASCII escaped (upper); `/` as `\u002f`; everything but
 * letters and digits escaped, either case.
 */
const JSON_STYLES: readonly JsonStyle[] = [
  {},
  { slash: 'backslash', nonAscii: 'u' },
  { slash: 'backslash' },
  { nonAscii: 'u' },
  { nonAscii: 'u', hex: 'upper' },
  { escapeAlso: '<>&\u2028\u2029' },
  { escapeAlso: '<>&\'"+`', nonAscii: 'u', hex: 'upper' },
  { slash: 'u' },
  { everything: true },
  { everything: true, hex: 'upper' },
];

function jsonEscaped(value: string, style: JsonStyle): string {
  const hex = (c: string) => {
    const digits = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${style.hex === 'upper' ? digits.toUpperCase() : digits}`;
  };
  let out = '';
  for (const c of value) {
    // Outside the Basic Multilingual Plane: as a surrogate pair, either half escaped alike.
    const units = c.length === 2 ? [c[0]!, c[1]!] : [c];
    for (const u of units) {
      const code = u.charCodeAt(0);
      if (style.everything === true && !/[A-Za-z0-9]/.test(u)) out += hex(u);
      else if (u === '"' && !(style.escapeAlso ?? '').includes('"')) out += '\\"';
      else if (u === '\\') out += '\\\\';
      else if (u === '/') out += style.slash === 'backslash' ? '\\/' : style.slash === 'u' ? hex(u) : u;
      else if ((style.escapeAlso ?? '').includes(u)) out += hex(u);
      else if (code < 0x20)
        out += JSON.stringify(u)
          .slice(1, -1)
          .replace(/\\u00([0-9a-f]{2})/, (_, d: string) => hex(String.fromCharCode(parseInt(d, 16))));
      else if (code >= 0x80 && style.nonAscii === 'u') out += hex(u);
      else out += u;
    }
  }
  return out;
}

/** JSON string contents in each style, their UTF-8 bytes as latin1; and the standard one once more inside a JSON string (JSON in JSON). */
function jsonForms(value: string): string[] {
  const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
  const standard = jsonEscaped(value, {});
  return [...JSON_STYLES.map((style) => utf8(jsonEscaped(value, style))), utf8(jsonEscaped(standard, {}))];
}

/**
 * Percent-encodings as clients and servers write them: RFC 3986's unreserved kept (strict); encodeURIComponent
 * (also `!'()*`); Python's quote (also `/`); encodeURI (also `;,/?:@&=+$!'()*#`); and the form encodings with a
 * space as `+`: URLSearchParams and Java's URLEncoder (`*-._` kept), PHP's urlencode (`-_.`), Python's
 * quote_plus (`_.-~`). Each in upper-case hex, the first three in lower case too.
 */
function percentForms(bytes: Buffer): string[] {
  const encode = (keep: string, space: '%20' | '+' = '%20') =>
    [...bytes]
      .map((b) => {
        const c = String.fromCharCode(b);
        if (b < 0x80 && (/[A-Za-z0-9]/.test(c) || keep.includes(c))) return c;
        if (c === ' ' && space === '+') return '+';
        return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  const lowerable = [encode('_.~-'), encode("_.~-!'()*"), encode('_.~-/')];
  return [
    ...lowerable,
    ...lowerable.map((form) => form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())),
    encode("_.~-;,/?:@&=+$!'()*#"),
    encode('*-._', '+'),
    encode('-_.', '+'),
    encode('_.-~', '+'),
  ];
}

/** HTML-escaped, as an error page quoting a header writes it: `&<>"` and `'` as `&#39;` or `&#x27;`. */
function htmlForms(latin1: string): string[] {
  const base = latin1.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return [base.replace(/'/g, '&#39;'), base.replace(/'/g, '&#x27;')];
}

/**
 * Base64 of the value at offsets 0, 1 and 2 within a longer encoded text, standard and URL-safe: for each, the
 * characters that depend on the value's bytes alone (a prefix's bytes change the characters their group shares).
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Characters [start, end) encode only the value's bits: skip the groups the offset's zero bytes share,
    // and stop before the last group when the value does not end it (the next bytes of the text would change it).
    const start = offset === 0 ? 0 : 4;
    const whole = Math.floor((offset + bytes.length) / 3) * 4;
    const core = encoded.slice(start, whole);
    // And the value ending the text (the encoding ends with it): its last group, padding left off, is the value's alone.
    const atEnd = encoded.slice(start).replace(/=+$/, '');
    for (const form of new Set([core, atEnd])) {
      if (form.length < BASE64_MIN_CHARS) continue;
      forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return forms;
}
