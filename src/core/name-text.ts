/**
 * The one text form of a file name (the red team's round 2: names that are
 * not valid UTF-8).
 *
 * A Linux file name is bytes, not text. Read as UTF-8 with replacement,
 * `r\xff.txt` and a real `r\u{fffd}.txt` both became `r�.txt`: the listing
 * showed two identical lines, export of that name returned the other file,
 * and a directory named `d\xff` vanished from the listing (its lossy name
 * did not resolve). Every name that crosses into text — results, JSON, CLI
 * and MCP arguments, the store — is written in this form instead, and turned
 * back into the exact bytes at the filesystem edge.
 *
 * The form, per code point of the name's valid UTF-8:
 *  - a byte that is not part of valid UTF-8 is `\xHH` (`\x` always means one raw byte);
 *  - a backslash is `\\`, so a real `\xff` in a name (`\\xff`) never reads as the byte;
 *  - newline, CR and tab are `\n`, `\r`, `\t`; other C0 controls and DEL are `\xHH`;
 *  - C1 controls, format and other invisible characters (bidi controls, zero
 *    width characters, line and paragraph separators, non-ASCII spaces) and
 *    U+FFFD are `\uHHHH` (`\u{HHHHH}` above U+FFFF), so no name reads as
 *    another name or as a lossy rendering;
 *  - a space at the start or end of a path component is `\x20`;
 *  - everything else is itself.
 * So a valid UTF-8 name without those characters is its own text form.
 *
 * Decoding accepts those escapes (and any character written as itself) and
 * refuses anything else after a backslash, so `a\b` is an error rather than
 * a guess. Encode then decode is the identity on bytes; distinct byte names
 * never share a text form (property-tested). Pure functions.
 */

/**
 * Characters shown as `\u` escapes: C1 controls, format (Cf), separators
 * (Zl, Zp), non-ASCII spaces, default-ignorables, U+FFFD; and (red team
 * round 3) private-use (Co) and unassigned (Cn) code points, the blank
 * U+2800, and combining marks (M), so `café` (NFC) and `cafe\u0301` (NFD),
 * or `p.txt` and `p\ue000.txt`, no longer print alike.
 */
const INVISIBLE = /[\u0080-\u009f\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{M}\p{Default_Ignorable_Code_Point}\u00a0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000\ufffd]/u;

const SHORT: Readonly<Record<number, string>> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x5c: '\\\\' };
const SHORT_BACK: Readonly<Record<string, number>> = { n: 0x0a, r: 0x0d, t: 0x09, '\\': 0x5c };

function hex2(byte: number): string {
  return `\\x${byte.toString(16).padStart(2, '0')}`;
}

/** Length of the well-formed UTF-8 sequence at `at` (Unicode table 3-7), or 0 when the byte there starts none. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const b0 = bytes[at]!;
  if (b0 < 0x80) return 1;
  const within = (i: number, lo: number, hi: number) => at + i < bytes.length && bytes[at + i]! >= lo && bytes[at + i]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return within(1, 0x80, 0xbf) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf; // ED A0..BF would be a surrogate
    return within(1, lo, hi) && within(2, 0x80, 0xbf) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf; // past U+10FFFF otherwise
    return within(1, lo, hi) && within(2, 0x80, 0xbf) && within(3, 0x80, 0xbf) ? 4 : 0;
  }
  return 0;
}

function escapeCodePoint(ch: string, cp: number): string {
  const short = SHORT[cp];
  if (short !== undefined) return short;
  if (cp < 0x20 || cp === 0x7f) return hex2(cp);
  if (!INVISIBLE.test(ch)) return ch;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Printable ASCII without a backslash and without a space at the edge of a component: its own text form (the common case, kept cheap for walks of large trees). */
function isPlainAscii(bytes: Uint8Array): boolean {
  for (let at = 0; at < bytes.length; at++) {
    const b = bytes[at]!;
    if (b < 0x20 || b > 0x7e || b === 0x5c) return false;
    if (b === 0x20 && (at === 0 || bytes[at - 1] === 0x2f || at + 1 === bytes.length || bytes[at + 1] === 0x2f)) return false;
  }
  return true;
}

/** The text form of a name or `/`-separated path given as bytes. */
export function nameText(bytes: Uint8Array): string {
  if (isPlainAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  let out = '';
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length === 0) {
      out += hex2(bytes[at]!);
      at += 1;
      continue;
    }
    const ch = Buffer.from(bytes.subarray(at, at + length)).toString('utf8');
    const cp = ch.codePointAt(0)!;
    // A space that starts or ends a component would be invisible in a listing (`report.json ` reads as `report.json`).
    const edge = cp === 0x20 && (at === 0 || bytes[at - 1] === 0x2f || at + 1 === bytes.length || bytes[at + 1] === 0x2f);
    out += edge ? '\\x20' : escapeCodePoint(ch, cp);
    at += length;
  }
  return out;
}

/** The text form of a name held as a JS string (its UTF-8 bytes): names a job passed as text, host paths. */
export function stringText(raw: string): string {
  return nameText(Buffer.from(raw, 'utf8'));
}

/** Why a text is not a name's text form; the caller wraps it in its own error. */
export class NameTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NameTextError';
  }
}

const HEX = /^[0-9a-fA-F]+$/;

/**
 * The exact bytes a text form stands for. Characters written as themselves
 * are their UTF-8; `\xHH` is one byte, `\uHHHH` / `\u{H…}` a code point,
 * `\\ \n \r \t` themselves. Throws NameTextError for any other escape, a
 * trailing backslash, or a lone surrogate (no bytes stand for it).
 */
export function nameBytes(text: string): Buffer {
  const out: number[] = [];
  const push = (s: string) => {
    for (const b of Buffer.from(s, 'utf8')) out.push(b);
  };
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    if (cp >= 0xd800 && cp <= 0xdfff) throw new NameTextError('it holds a lone UTF-16 surrogate, which no file name can contain');
    if (cp !== 0x5c) {
      const ch = String.fromCodePoint(cp);
      push(ch);
      i += ch.length;
      continue;
    }
    const kind = text[i + 1];
    if (kind === undefined) throw new NameTextError('it ends in a lone backslash; a backslash in a name is written \\\\');
    const short = SHORT_BACK[kind];
    if (short !== undefined) {
      out.push(short);
      i += 2;
      continue;
    }
    if (kind === 'x') {
      const digits = text.slice(i + 2, i + 4);
      if (digits.length !== 2 || !HEX.test(digits)) throw new NameTextError('\\x needs two hex digits (one byte, e.g. \\xff)');
      out.push(parseInt(digits, 16));
      i += 4;
      continue;
    }
    if (kind === 'u') {
      const braced = text[i + 2] === '{';
      const end = braced ? text.indexOf('}', i + 3) : i + 6;
      const digits = braced ? (end < 0 ? '' : text.slice(i + 3, end)) : text.slice(i + 2, end);
      const value = digits.length >= 1 && digits.length <= 6 && HEX.test(digits) && (braced || digits.length === 4) ? parseInt(digits, 16) : -1;
      if (value < 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
        throw new NameTextError('\\u needs four hex digits or \\u{…} with a code point that is not a surrogate');
      push(String.fromCodePoint(value));
      i = braced ? end + 1 : end;
      continue;
    }
    throw new NameTextError(`\\${kind} is not an escape a name can hold; a backslash in a name is written \\\\`);
  }
  return Buffer.from(out);
}

/** The canonical text form of a text (decode, then encode): equal names always compare equal as text. */
export function canonicalText(text: string): string {
  return nameText(nameBytes(text));
}

/** True when `text` is not simply the name written as itself (it holds an escape). */
export function hasEscapes(text: string): boolean {
  return text.includes('\\');
}

/** A workspace path's text form clipped for a message: its first 40 and last 39 characters around an ellipsis past 80. */
export function clippedPath(rel: string): string {
  return rel.length > 80 ? `${rel.slice(0, 40)}…${rel.slice(-39)}` : rel;
}
